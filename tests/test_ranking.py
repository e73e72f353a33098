"""Ranking rules, pinned on a small fixture: identifiers, typos, changelogs, operators."""

from __future__ import annotations

import numpy as np
import pytest

import docwheel
from docwheel.build import build_from_file
from docwheel.index import pair_terms
from docwheel.ranking import ImpactIndex, best_per_page, impacts
from docwheel.spelling import Speller, allowed_edits, edit_distance, one_edit

from helpers import FIXTURES, write_config


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    root = tmp_path_factory.mktemp("ranking")
    config = write_config(
        root,
        f"name: mock\nsources:\n  - name: mock\n    kind: llms-full\n"
        f"    path: {FIXTURES / 'ranking' / 'llms-full.txt'}\n",
    )
    build_from_file(config, root / "index")
    with docwheel.open_index(root / "index") as index:
        yield index


def markdown_site(tmp_path, pages: dict[str, str]):
    """An index built from ``pages`` ({file name: Markdown}) as one markdown source."""
    site = tmp_path / "site"
    site.mkdir()
    for name, text in pages.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    config = write_config(
        tmp_path, f"name: t\nsources:\n  - name: s\n    kind: markdown\n    path: {site}\n"
    )
    build_from_file(config, tmp_path / "index")
    return tmp_path / "index"


def first_url(docs, query: str, **kwargs) -> str:
    result = docs.search(query, **kwargs)
    assert result.results, f"no results for {query!r}"
    return result.results[0].url.split("#")[0]


def test_question_finds_the_answering_section_without_the_title_words(docs):
    hit = docs.search("how do I make it return something else the second time?").results[0]
    assert hit.url == "https://mock.example/stubs#return-a-different-value-on-each-call"


def test_camel_case_identifier_finds_its_own_page_first(docs):
    assert first_url(docs, "yieldsRight") == "https://mock.example/stubs/yields-right"


@pytest.mark.parametrize(
    "query", ["gather", "asyncio.gather", "PLANE_API_KEY", "snake_case_name", "plane api key"]
)
def test_identifier_parts_and_whole_names_both_match(docs, query):
    assert first_url(docs, query) == "https://mock.example/asyncio"


def test_typo_is_corrected_from_the_index_vocabulary_and_said(docs):
    result = docs.search("stub rejcts with an error")
    assert result.results[0].url == "https://mock.example/stubs/rejects"
    assert any("instead of 'rejcts'" in w for w in result.warnings)


def test_known_words_are_never_corrected(docs):
    assert not any("instead of" in w for w in docs.search("stub yields").warnings)


def test_changelog_ranks_below_the_guide(docs):
    # Without the demotion the short changelog entry would outscore the guide here.
    assert first_url(docs, "request times out cancelled") == "https://mock.example/guides/timeouts"


def test_changelog_keeps_its_rank_when_the_query_asks_for_changes(docs):
    assert first_url(docs, "what changed: timeout_seconds added") == "https://mock.example/changelog"


def test_operator_queries_match_by_whoosh_and_rank_by_bm25f(docs):
    result = docs.search('"callback argument" AND last')
    assert [h.url for h in result.results] == ["https://mock.example/stubs/yields-right"]
    assert docs.search("yield* NOT last").results[0].url == "https://mock.example/stubs/yields"


@pytest.mark.parametrize(
    "query",
    [
        "stub OR gather",
        "stub AND callback NOT last",
        "(yield OR gather) AND argument",
        "stub OR title:gather OR yield*",
        '"callback argument" OR asyncio.gather',
        "nosuchword OR stub",
        '"callback argument"',
        '"callback argument" AND "the given values"',
        '"times out" AND ("is cancelled" OR "timeout_seconds")',
        '"the original method" OR "call return"',
        '"second call return" AND onCall',
        '"TimeoutError raises" OR "asyncio.gather(*tasks)"',
    ],
)
def test_operator_matching_agrees_with_whoosh_own_matching(docs, query):
    # Words searched in every field come from the impacts and phrases are checked only in
    # the sections that hold their words, not through Whoosh's matchers: the sections must
    # be exactly the ones Whoosh finds. (NOT is left out: Whoosh's own AND NOT keeps some
    # sections whose excluded phrase is there; so are phrases with a stop word inside,
    # which Whoosh never matches: see the test after this one.)
    index = docs._wix
    parsed, _ = index.parse(query)
    expected = np.zeros(len(index._impacts.pages), dtype=bool)
    expected[list(index._searcher().docs_for_query(parsed))] = True
    assert expected.any()
    assert np.array_equal(index._matches(parsed), expected)


@pytest.mark.parametrize(
    ("query", "url"),
    [
        ('"TimeoutError and is cancelled"', "https://mock.example/guides/timeouts#limits"),
        ('"times out and is cancelled" AND added', "https://mock.example/changelog#20"),
        ('"reach the original method"', "https://mock.example/stubs#call-through-to-the-original"),
    ],
)
def test_a_phrase_with_a_stop_word_inside_matches_where_it_stands(docs, query, url):
    # The stop word is no term, but it keeps its place in the index and in the query.
    result = docs.search(query)
    assert [h.url for h in result.results] == [url]
    assert not result.warnings


def test_a_phrase_does_not_match_its_words_with_other_words_between(docs):
    index = docs._wix
    # "times out raises a TimeoutError and is cancelled": other words than stop words between.
    parsed, _ = index.parse('"times out and is cancelled"')
    matched = {index._hits([(int(d), 1.0)], True)[0].fields["ref"] for d in np.flatnonzero(index._matches(parsed))}
    assert matched == {"mock:changelog#20"}


def test_a_quoted_phrase_with_a_stop_word_and_another_word_finds_its_section(tmp_path):
    index = markdown_site(tmp_path, {
        "deps.md": "# Dependencies\n\n## Dependencies with yield\n\nClean up after the "
                   "response. A StreamingResponse keeps the dependency open.\n",
        "other.md": "# Other\n\nDependencies yield values; a StreamingResponse streams.\n",
    })
    with docwheel.open_index(index) as docs:
        result = docs.search('"dependencies with yield" AND StreamingResponse')
    assert [h.url.split("#")[0] for h in result.results] == ["deps.md"]
    assert not result.warnings


@pytest.mark.parametrize("query", ["vite:preloadError", "vite:preloadError AND event"])
def test_a_word_colon_name_that_is_not_a_query_field_is_a_literal_term(tmp_path, query):
    index = markdown_site(tmp_path, {
        "errors.md": "# Loading errors\n\nListen for the `vite:preloadError` event to reload.\n",
        "blog.md": "# Vite blog\n\nVite vite vite: posts about Vite and its releases.\n",
    })
    with docwheel.open_index(index) as docs:
        result = docs.search(query)
    assert result.results[0].url.split("#")[0] == "errors.md"
    assert not result.warnings


def test_only_the_query_fields_are_fields():
    from docwheel.index import QUERY_FIELDS, is_plain

    assert set(QUERY_FIELDS) >= {"title", "section", "source"}
    for name in QUERY_FIELDS:
        assert not is_plain(f"{name}:install")
    for text in ("vite:preloadError", "std::vector", "subtitle:foo", "body:x", "https://a.example/x"):
        assert is_plain(text), text


def test_a_field_inside_a_longer_name_is_no_field(docs):
    parsed, _ = docs._wix.parse("subtitle:gather AND gather")
    words = {text for _field, text in parsed.iter_all_terms()}
    assert {"subtitl", "subtitle.gath"} <= words and "sub" not in words  # read whole, as text
    assert docs.search("subtitle:gather AND gather").results


@pytest.mark.parametrize(
    ("query", "urls"),
    [
        # Nothing holds both: the words, any of them.
        ('"callback argument" AND rejects', {"https://mock.example/stubs/rejects",
                                             "https://mock.example/stubs/yields",
                                             "https://mock.example/stubs/yields-right"}),
        # No title holds the word: the word anywhere.
        ("title:gather", {"https://mock.example/asyncio"}),
        # What NOT excludes stays excluded.
        ("callback AND nosuchword NOT last", {"https://mock.example/stubs/yields"}),
    ],
)
def test_an_operator_query_that_matches_nothing_falls_back_to_any_of_its_words(docs, query, urls):
    result = docs.search(query)
    assert {h.url.split("#")[0] for h in result.results} == urls
    assert any("as written" in w and "any of its words" in w for w in result.warnings)


def test_a_query_none_of_whose_words_the_docs_hold_still_finds_nothing(docs):
    result = docs.search('"zebra quagga" AND okapi')
    assert result.results == ()
    assert not any("any of its words" in w for w in result.warnings)


def test_a_question_mark_is_not_a_wildcard(docs):
    assert first_url(docs, "can a stub call through to the original?") == (
        "https://mock.example/stubs"
    )


# -- pure parts ----------------------------------------------------------------------------


def test_impacts_grow_with_frequency_and_saturate():
    values = impacts(np.array([1.0, 2.0, 50.0]), n_docs=100)
    assert values[0] < values[1] < values[2] < 2.2 * values[0]


def test_rare_terms_weigh_more_than_common_ones():
    rare = impacts(np.ones(2), n_docs=100)[0]
    common = impacts(np.ones(90), n_docs=100)[0]
    assert rare > 5 * common


def test_best_per_page_keeps_one_section_per_page_and_counts_pages():
    scores = np.array([0.5, 3.0, 2.0, 0.0, 1.0], dtype=np.float32)
    pages = np.array([0, 0, 1, 1, 2], dtype=np.int32)
    chosen, total = best_per_page(scores, pages, limit=10)
    assert chosen == [(1, 3.0), (2, 2.0), (4, 1.0)]
    assert total == 3
    assert best_per_page(scores, pages, limit=1)[0] == [(1, 3.0)]


def test_impact_index_round_trips_through_files(tmp_path):
    built = ImpactIndex.from_postings({"b": {0: 1.0}, "a": {1: 2.0, 0: 1.0}}, [0, 0])
    built.save(tmp_path, "t")
    loaded = ImpactIndex.load(tmp_path, "t")
    total, matched = loaded.scores(["a", "b", "missing"])
    assert matched.tolist() == [2, 1]
    assert total[0] > 0 and total[1] > 0


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [("reject", "reject", 0), ("rejct", "reject", 1), ("verfiy", "verify", 1), ("abc", "xyz", 3)],
)
def test_edit_distance_counts_transpositions_once(a, b, distance):
    assert edit_distance(a, b, limit=3) == distance


def test_speller_prefers_the_closest_then_the_most_common_term():
    frequency = {"restore": 5, "restart": 50, "rest": 9}.get
    speller = Speller(["restore", "restart", "rest"], lambda t: frequency(t) or 0)
    assert speller.suggest("restor") == "restore"
    assert speller.suggest("xyz") is None
    assert speller.suggest("res") is None  # too short to correct


def test_a_typo_that_keeps_the_stemmer_from_cutting_the_suffix_is_corrected_by_the_word():
    from whoosh.lang.porter import stem

    frequency = {"elicit": 7, "configur": 3, "gather": 2}.get
    surface = {"elicitation": "elicit", "configuration": "configur"}  # what the build saw
    speller = Speller(["elicit", "configur", "gather"], lambda t: frequency(t) or 0, surface)
    # Stemmed, the typos are four edits from the stems; one edit from the words.
    assert speller.suggest(stem("elicitaton")) is None
    assert speller.suggest_word("elicitaton") == "elicit"
    assert speller.suggest_word("Configuraton") == "configur"
    assert speller.suggest_word("gathers") == "gather"  # a word that is its own stem
    assert Speller(["tool"], lambda t: 3, {"tools": "tool"}).suggest_word("toolss") == "tool"
    assert speller.suggest_word("xylophones") is None
    assert speller.suggest_word("elict") is None  # too short to guess at


def test_the_letter_filter_keeps_every_term_within_the_edit_limit():
    # The speller computes edit distances only for terms whose letters are close enough;
    # it must find exactly what comparing with every term finds.
    import random

    rng = random.Random(7)
    vocabulary = sorted({"".join(rng.choice("abcdeilnorst") for _ in range(rng.randint(4, 10)))
                         for _ in range(3000)} | {"naïve", "naïves", "café"})
    frequency = {t: rng.randint(1, 50) for t in vocabulary}.get
    speller = Speller(vocabulary, lambda t: frequency(t) or 0)
    for typed in [*rng.sample(vocabulary, 200), "naive", "naïvs", "cafe", "cafés"]:
        for typo in (typed[:-1], typed[1:] + "e", typed[:2] + typed[3:] + "s", typed):
            limit = allowed_edits(typo)
            expected = min(
                ((edit_distance(typo, k, limit), -frequency(k), k) for k in vocabulary
                 if k[0] == typo[:1] and abs(len(k) - len(typo)) <= limit),
                default=None,
            ) if limit and typo.isalpha() else None
            if expected is not None and expected[0] > limit:
                expected = None
            got = Speller(vocabulary, lambda t: frequency(t) or 0).suggest(typo)
            assert got == (expected[2] if expected else None), typo


def test_the_build_records_the_words_the_stemmer_changes_for_the_speller(tmp_path):
    from docwheel.spelling import load_surface

    pages = {"a.md": "# Configuration\n\nConfiguring elicitations: gather the KITCHEN sinks "
                     "and tools in a few rooms.\n"}
    surface = load_surface(markdown_site(tmp_path, pages))
    assert surface["configuration"] == "configur" and surface["configuring"] == "configur"
    assert surface["elicitations"] == "elicit"
    # Five letters: a guess one letter shorter than a six-letter typo ("toolss").
    assert surface["sinks"] == "sink" and surface["tools"] == "tool" and surface["rooms"] == "room"
    assert "kitchen" not in surface  # its own stem (upper case in the text): an index term
    assert "gather" not in surface  # its own stem: an index term already
    assert "few" not in surface  # too short to be a guess


def test_a_question_full_of_words_the_docs_never_use_is_answered_quickly(tmp_path):
    import time

    pages = {f"p{i}.md": f"# Page {i}\n\nConfigure the server{i} with options and settings.\n"
             for i in range(50)}
    words = ("photosynthesis metamorphosis grandmother umbrella wonderful kitchen bicycle "
             "lighthouse parliament orchestra dinosaur volcano").split()
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        index.search("configure options")  # warm
        timings = []
        for i in range(5):  # fresh words each time: nothing remembered from the last query
            question = "why would " + " ".join(f"{w}{'abcde'[i]}" for w in words[i : i + 6])
            started = time.perf_counter()
            index.search(question)
            timings.append(time.perf_counter() - started)
        # Was 20-40 ms when each unknown word's guesses were stemmed at query time.
        assert sorted(timings)[2] < 0.015


def test_search_corrects_a_typo_in_a_suffix_and_says_so(tmp_path):
    pages = {
        "elicitation.md": "# Elicitation\n\nAsk the user for input while a tool runs.\n",
        "sampling.md": "# Sampling\n\nAsk the client's model for a completion.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        result = index.search("elicitaton ask")
        assert result.results[0].title == "Elicitation"
        assert result.warnings == ("searched for 'elicit' instead of 'elicitaton'",)


def test_a_name_written_with_backslash_escapes_is_found_by_the_name(tmp_path):
    pages = {
        "config.md": "# Setup\n\nOpen claude\\_desktop\\_config.json and add the server.\n",
        "other.md": "# Other\n\nA page about the desktop app and its server.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        hit = index.search("claude_desktop_config.json").results[0]
        assert hit.title == "Setup" and "claude_desktop_config.json" in hit.snippet
        assert index.search('"desktop config"').results[0].title == "Setup"


def test_one_edit_covers_drops_swaps_changes_and_inserts():
    edits = one_edit("abc")
    assert {"bc", "bac", "abd", "abxc"} <= edits and "abc" not in edits
    assert all(e.startswith("abcd") for e in one_edit("abcdefgh", tail=4))


def test_explain_accounts_for_the_score(docs):
    hit = docs.search("yieldsRight last callback", explain=True).results[0]
    why = hit.explain
    assert set(why["matched"]) >= {"yieldsright", "callback"}
    assert why["matched"]["yieldsright"]["fields"].keys() >= {"title"}
    for term in why["matched"].values():
        assert sum(term["fields"].values()) == pytest.approx(term["score"], rel=1e-3)
    rebuilt = (
        why["section_score"] * why["coverage"]
        + why["pair_weight"] * sum(why["pairs"].values())
        + why["page_weight"] * why["page_score"]
    ) * why["changelog_factor"] * why["version_factor"]
    assert rebuilt == pytest.approx(hit.score, rel=1e-3)
    assert why["score"] == pytest.approx(hit.score, rel=1e-3)


def test_explain_shows_the_changelog_factor(docs):
    hits = docs.search("request times out cancelled", explain=True).results
    changelog = next(h for h in hits if "changelog" in h.url)
    assert changelog.explain["changelog_factor"] == 0.5


def test_results_are_pages_unless_sections_are_asked_for(docs):
    pages = docs.search("stub call", limit=10)
    sections = docs.search("stub call", limit=10, sections=True)
    page_refs = [h.ref.split("#")[0] for h in pages.results]
    assert len(page_refs) == len(set(page_refs))
    section_pages = [h.ref.split("#")[0] for h in sections.results]
    assert len(section_pages) > len(set(section_pages))  # several sections of one page
    assert sections.total >= pages.total


@pytest.mark.parametrize(
    ("query", "url"),
    [
        ("title:rejections", "https://mock.example/stubs/rejects"),
        ("section:limits timeout", "https://mock.example/guides/timeouts"),
        ("source:mock AND gather", "https://mock.example/asyncio"),
        ("reject*", "https://mock.example/stubs/rejects"),
    ],
)
def test_field_and_prefix_operators(docs, query, url):
    assert first_url(docs, query) == url


def test_field_filter_excludes_pages_without_the_word_in_that_field(docs):
    urls = {h.url.split("#")[0] for h in docs.search("title:timeouts", limit=20).results}
    assert urls == {"https://mock.example/guides/timeouts"}  # the changelog has it in its text


def test_words_standing_together_rank_above_the_same_words_apart(tmp_path):
    pages = {
        "apart.md": "# Apart\n\nThe cache is cold after a restart, and the cache fills slowly. "
            "Later, when you warm the oven, wait.\n",
        "together.md": "# Together\n\nWhen the oven is cold, the stores start empty: warm cache entries after a restart.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        result = index.search("warm cache", explain=True)
        assert [h.title for h in result.results] == ["Together", "Apart"]
        assert list(result.results[0].explain["pairs"]) == ["warm cach"]
        assert result.results[1].explain["pairs"] == {}
        index._wix.pair_weight = 0.0  # without the pair signal, "cache" twice wins
        assert [h.title for h in index.search("warm cache").results] == ["Apart", "Together"]


def test_numbers_inside_a_typed_name_do_not_match_on_their_own(tmp_path):
    pages = {
        "localization.md": "# Languages\n\nTurn on i18n for the site, then list the locales editors can pick.\n",
        "runtime.md": "# Runtime\n\nNode 18 or later is required: date locales come from the Intl data "
            "of Node 18. Node 18 ships full locales; older locales data is partial.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        result = index.search("i18n locales", explain=True)
        assert [h.title for h in result.results] == ["Languages", "Runtime"]
        assert result.results[0].explain["terms"] == ["i18n", "local"]
        # The number typed alone still finds it, and so does a number-only word.
        assert index.search("18").results[0].title == "Runtime"


def test_best_per_page_matches_a_full_sort_on_large_inputs_with_ties():
    """Only the best few hits are sorted; the answer must be the full sort's."""
    rng = np.random.default_rng(3)
    for n, n_pages in ((50, 5), (5_000, 40), (20_000, 20_000), (20_000, 3)):
        scores = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 2.0, 3.0], size=n).astype(np.float32)
        pages = np.sort(rng.integers(0, n_pages, size=n)).astype(np.int32)
        for limit in (1, 5, 20):
            for per_page in (True, False):
                hits = np.flatnonzero(scores > 0)
                order = hits[np.lexsort((hits, -scores[hits]))]
                expected, seen = [], set()
                for doc in order:
                    if per_page and int(pages[doc]) in seen:
                        continue
                    seen.add(int(pages[doc]))
                    expected.append((int(doc), float(scores[doc])))
                    if len(expected) == limit:
                        break
                total = len(set(pages[hits].tolist())) if per_page else len(hits)
                assert best_per_page(scores, pages, limit, per_page=per_page) == (expected, total)


def test_a_page_description_outweighs_prose_though_most_sections_have_none(tmp_path):
    # Field lengths are compared with the average over the sections that have the field:
    # counted over every section, a description looks ten times longer than it is.
    filler = "Plain steps follow here with nothing special in them at all. " * 3
    sections = "".join(f"\n## Part {n}\n\n{filler}\n" for n in range(9))
    pages = {
        f"guide{n}.md": f"---\ntitle: Guide {n}\ndescription: How the guide number {n} is laid out\n---\n"
        f"\n{filler}\n{sections}"
        for n in range(4)
    }
    pages["described.md"] = (
        "---\ntitle: Described\ndescription: Keeping the zebra index fresh between builds\n---\n"
        f"\n{filler}\n{sections}"
    )
    pages["mentioned.md"] = (
        "---\ntitle: Mentioned\ndescription: How the other pages are laid out\n---\n"
        f"\nPlain steps follow here with zebra in them, nothing special at all. {filler}\n{sections}"
    )
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        assert [h.title for h in index.search("zebra").results] == ["Described", "Mentioned"]


def test_words_either_side_of_a_clause_break_are_not_a_pair(tmp_path):
    pages = {
        "table.md": "# Table\n\n| Setting | Meaning |\n|---|---|\n| cold | oven warm |\n| cache | entries |\n",
        "sentence.md": "# Sentence\n\nLet the oven get warm. Cache entries fill slowly; warm again.\n",
        "phrase.md": "# Phrase\n\nA warm cache answers fast.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        result = index.search("warm cache", explain=True)
        pairs = {h.title: list(h.explain["pairs"]) for h in result.results}
        assert pairs == {"Phrase": ["warm cach"], "Table": [], "Sentence": []}
        assert result.results[0].title == "Phrase"
    # A query is paired by the same rule.
    assert pair_terms("warm cache") == ["warm cach"]
    assert pair_terms("warm; cache") == pair_terms("warm. Cache") == []


def test_inflected_words_find_each_other_and_unrelated_words_do_not(tmp_path):
    pages = {
        "stubs.md": "# Stubs\n\nStub the method, then run the suite once more.\n",
        "codegen.md": "# Codegen\n\nGenerate the client from the schema.\n",
        "defaults.md": "# Defaults\n\nThe general settings apply to every project.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        for query in ("stubbing", "running"):  # found by the stem, not as a typo
            result = index.search(query)
            assert ([h.title for h in result.results], list(result.warnings)) == (["Stubs"], [])
        assert [h.title for h in index.search("generated").results] == ["Codegen"]
        assert [h.title for h in index.search("generally").results] == ["Defaults"]


def _versioned_site(tmp_path):
    guide = "# Retries\n\nSet retries with `RetryPolicy(max=3)`; failed calls are sent again.\n"
    old = "# Retries\n\nSet retries with `retry_count=3`: retries repeat failed calls.\n"
    return markdown_site(tmp_path, {
        "guide/retries.md": guide,
        "v3/guide/retries.md": old,
        "v2/guide/retries.md": old,
        "v2/guide/backoff.md": "# Backoff\n\nRetries back off: retries wait longer each time.\n",
        "guide/timeouts.md": "# Timeouts\n\nA call that times out is not retried unless retries are set.\n",
    })


def test_a_page_kept_in_old_versions_is_one_result_at_its_current_version(tmp_path):
    with docwheel.open_index(_versioned_site(tmp_path)) as docs:
        result = docs.search("retries", limit=10, explain=True)
    refs = [hit.ref for hit in result.results]
    # The old copies say "retries" more often, yet the current page comes first, once.
    assert refs[0] == "s:guide/retries"
    assert set(result.results[0].other_versions) == {"s:v3/guide/retries", "s:v2/guide/retries"}
    assert not any(ref.startswith(("s:v2/guide/retries", "s:v3/")) for ref in refs)
    assert result.total == len(refs) == 3
    # A page found only in an old version is old too: below the current docs.
    assert refs.index("s:v2/guide/backoff") > refs.index("s:guide/timeouts")
    assert result.results[refs.index("s:v2/guide/backoff")].explain["version_factor"] == 0.6
    assert result.results[0].explain["version_factor"] == 1.0


def test_a_query_that_names_a_version_gets_that_versions_pages_first(tmp_path):
    with docwheel.open_index(_versioned_site(tmp_path)) as docs:
        named = docs.search("retries in v2.x", limit=10, explain=True).results
        v3 = docs.search("v3 retries", limit=10).results
    # The v2 copy of the retries page stands for it, and the current docs give way.
    assert [hit.ref for hit in named][:2] == ["s:v2/guide/retries", "s:v2/guide/backoff"]
    assert set(named[0].other_versions) == {"s:guide/retries", "s:v3/guide/retries"}
    assert named[0].explain["version_factor"] == 1.0
    # A page only in the current docs is of the current version too.
    assert named[-1].ref == "s:guide/timeouts" and named[-1].explain["version_factor"] == 0.6
    assert v3[0].ref == "s:v3/guide/retries"


def test_sections_list_every_versions_copy(tmp_path):
    with docwheel.open_index(_versioned_site(tmp_path)) as docs:
        hits = docs.search("retries", limit=10, sections=True).results
    refs = [hit.ref for hit in hits]
    assert {"s:guide/retries", "s:v3/guide/retries", "s:v2/guide/retries"} <= set(refs)
    assert refs[0] == "s:guide/retries"
    assert all(hit.other_versions == () for hit in hits)


def test_link_targets_and_tag_markup_are_not_searched_but_labels_are(tmp_path):
    index = markdown_site(tmp_path, {
        "guide.md": "# Guide\n\nRead [the next page](/servers/middleware) first. "
        '<a href="https://github.com/acme/blob/main/slim/x.py" target="_blank">source</a>\n',
        "tools.md": '# Tools\n\n<abbr title="dependency resolver">uv</abbr> installs packages.\n',
    })
    with docwheel.open_index(index) as docs:
        assert docs.search("middleware").results == ()
        assert docs.search("slim blob").results == ()
        assert first_url(docs, "resolver") == "tools.md"
        assert first_url(docs, "next page source") == "guide.md"


def test_a_section_with_the_questions_rare_words_outranks_one_with_its_common_words(tmp_path):
    # Coverage holds back a section that matches part of the question; squared, it buried
    # the one section holding the question's rare words ("alert", "confirm") under a
    # section holding many of its common ones (COVERAGE_POWER, checked leave-one-corpus-out).
    pages = {
        "dialogs.md": "# Dialogs\n\nA page that calls alert or confirm stops "
        + "and waits " * 15
        + "until someone answers.\n",
        "runner.md": "# Runner\n\nWhat happens in a test run: the code under test gets each call, "
        "and the run logs every test call that happens.\n",
    }
    for i in range(6):
        pages[f"notes{i}.md"] = (
            f"# Notes {i}\n\nOn topic {i}: what happens to code under test in a run, and how a call is made.\n"
        )
    question = "what happens when the code under test calls alert or confirm during a test run"
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        index._wix.page_weight = 0.0  # the sections' own scores alone
        assert [h.title for h in index.search(question).results[:2]] == ["Dialogs", "Runner"]
        index._wix.coord_power = 2.0
        assert [h.title for h in index.search(question).results[:2]] == ["Runner", "Dialogs"]


def test_an_irregular_verb_form_finds_pages_that_use_the_verb(tmp_path):
    # The stemmer leaves "overridden" whole and cuts "override" to overrid: the analyzer
    # reads irregular forms as their verb first, in the docs and in the query alike.
    pages = {
        "overrides.md": "# Overrides\n\nTo override the Header component, point the override at your file.\n",
        "defaults.md": "# Defaults\n\nA default is overridden by the config file, one component at a time.\n",
        "other.md": "# Other\n\nA page about something else: a component and a file.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        assert index._wix.analyze("overridden hidden written") == ["overrid", "hide", "write"]
        found = [h.title for h in index.search("my overridden component").results]
        assert found[0] == "Overrides" and "Defaults" in found


def test_a_correction_is_judged_by_the_word_as_typed_not_only_by_its_stem():
    # "insted" stems to "inst": one edit from "init", but "instead" is one edit as typed and
    # "init" three. "fles" is one edit from "flex" and from "files"; files are more common.
    frequency = {"init": 9, "instead": 4, "flex": 2, "file": 30, "reset": 3}.get
    surface = {"files": "file"}
    speller = Speller(["init", "instead", "flex", "file", "reset"], lambda t: frequency(t) or 0, surface)
    assert speller.suggest("inst") == "init" and speller.suggest("fles") == "flex"
    assert speller.correct("inst", "insted") == "instead"
    assert speller.correct("fles", "Fles") == "file"
    assert speller.correct("init", "init") == "init"
    # A word whose stem has no near term is not guessed at from every word one edit away.
    assert speller.correct("rese", "rese") == "reset"
    assert Speller(["be"], lambda t: 5, {"being": "be"}).correct("bring", "bring") is None


def test_a_common_english_word_the_docs_do_not_use_is_left_as_typed(tmp_path):
    # "rest" is one edit from "reset", "leave" from "leak", "stays" stems one edit from
    # "star": all are meant as written. A typo that is no English word is still corrected.
    pages = {
        "reset.md": "# Reset a stub\n\nCall reset to clear a stub's behaviour and history.\n",
        "leaks.md": "# Memory leak\n\nA leak shows when a fake timer is not restored.\n",
        "stars.md": "# Star the repo\n\nA star helps others find the project.\n",
        "other.md": "# Sandboxes\n\nA sandbox holds every fake; restore it after each test.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        result = index.search("keep the rest of the stub as it stays")
        assert not any("instead of" in w for w in result.warnings), result.warnings
        # ... and no news either: a common word the docs lack is phrasing, not a gap.
        assert result.warnings == ()
        assert index.search("sandbox zyzzyvaqq").warnings == ("'zyzzyvaqq' does not appear in these docs",)
        assert not any("instead of" in w for w in index.search("leave the sandbox alone").warnings)
        assert not any("instead of" in w for w in index.search("hand-written sandbox").warnings)
        assert "searched for 'reset' instead of 'rset'" in index.search("rset a stub").warnings
        assert "searched for 'sandbox' instead of 'sandbx'" in index.search("sandbx").warnings


def test_speller_knows_a_word_common_when_every_part_of_it_is():
    speller = Speller(["reset"], lambda t: 1, {}, lambda: frozenset({"rest", "hand", "written"}))
    assert speller.is_common("rest") and speller.is_common("Rest")
    assert speller.is_common("hand-written") and speller.is_common("hand_written")
    assert not speller.is_common("rset") and not speller.is_common("hand-wirtten")
    assert not speller.is_common("") and not speller.is_common("--")
    assert not speller.is_common("rést")  # not ASCII: no English word of the list


def test_the_build_writes_the_common_english_words_the_docs_do_not_use(tmp_path):
    from docwheel.english import common_english
    from docwheel.spelling import COMMON_FILE, load_common

    pages = {"a.md": "# Configuration\n\nConfiguring the server: the tools and their options.\n"}
    directory = markdown_site(tmp_path, pages)
    common = load_common(directory)
    english = set(common_english())
    assert {"rest", "leave", "move", "missing", "written"} <= common <= english
    # Words of the docs are index terms or the speller's own surface words: not repeated.
    assert not {"the", "server", "tools", "configuration", "their"} & common
    assert not common & {"tets", "instal", "teh"}  # the list's rare tail holds misspellings
    assert all(word.isascii() and word.isalpha() and word.islower() for word in common)
    first = (directory / COMMON_FILE).read_bytes()
    (tmp_path / "again").mkdir()
    again = markdown_site(tmp_path / "again", pages)  # a rebuild writes the same bytes
    assert (again / COMMON_FILE).read_bytes() == first


def test_a_damaged_common_word_list_is_a_clear_error_naming_the_file(tmp_path):
    from docwheel.spelling import COMMON_FILE

    directory = markdown_site(tmp_path, {"a.md": "# Reset\n\nReset the stub.\n"})
    (directory / COMMON_FILE).write_bytes(b"not gzip")
    with docwheel.open_index(directory) as index:
        with pytest.raises(docwheel.IndexLoadError, match=r"spelling_common\.txt\.gz.*rebuild the index"):
            index.search("rset the stub")


def test_a_docs_word_with_a_derivational_suffix_is_searched_as_that_word(tmp_path):
    # The stemmer leaves "able" on "searchable" (a short stem keeps it), and the nearest
    # term by edits would be another word; the word the docs use is "search".
    frequency = {"search": 9, "searchlabel": 3, "resize": 2, "forget": 2, "happy": 2}.get
    surface = {"resizes": "resiz"}
    speller = Speller(["search", "searchlabel", "resiz", "forget", "happi"], lambda t: frequency(t) or 0, surface)
    assert speller.root("searchable") == "search" and speller.root("Searchable") == "search"
    assert speller.root("resizable") == "resiz"  # the docs' word is "resize"
    assert speller.root("forgettable") == "forget"  # a doubled final consonant
    assert speller.root("comment") is None  # "com" is too short a root
    assert speller.root("searchlabel") is None and speller.root("zyzzyva") is None
    pages = {
        "search.md": "# Site search\n\nThe search bar finds a page by its words.\n",
        "ui.md": "# UI strings\n\nThe searchlabel string names the search button.\n",
    }
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        result = index.search("which pages are searchable")
        assert "searched for 'search' instead of 'searchable'" in result.warnings


def test_a_word_written_as_code_in_a_question_names_what_it_asks_about(tmp_path):
    # The prose words ("what happens", "code under test", "real") match the timers section
    # better than the short one about the two functions the question names as code.
    topics = ["Snapshots", "Coverage", "Workers", "Reporters", "Fixtures", "Globals", "Filters"]
    pages = {f"p{i}.md": f"# {t}\n\n{t} change how a test runs. The code under test runs once.\n"
             for i, t in enumerate(topics)}
    pages["timers.md"] = ("# Waiting\n\n## Fake timers\n\nWhat happens to the code under test with "
                          "real timers: it runs in real time unless you fake them.\n")
    pages["dialogs.md"] = "# Browser mode\n\n## Blocking dialogs\n\nDialogs like alert or confirm block the page.\n"
    question = "what happens when the code under test calls {} or {} in a real run"
    with docwheel.open_index(markdown_site(tmp_path, pages)) as index:
        plain = index.search(question.format("alert", "confirm")).results[0]
        assert plain.url == "timers.md#fake-timers"  # as words, the prose wins
        hit = index.search(question.format("alert()", "confirm()"), explain=True).results[0]
        assert hit.url == "dialogs.md#blocking-dialogs"
        assert hit.explain["emphasis"] == {"alert": 2.0, "confirm": 2.0}
        hit = index.search(question.format("`alert`", "`confirm`"), explain=True).results[0]
        assert hit.url == "dialogs.md#blocking-dialogs"
        # Names alone weigh alike: there is no prose for them to stand out from.
        assert index.search("alert() confirm()", explain=True).results[0].explain["emphasis"] == {}


@pytest.mark.parametrize(
    ("word", "code"),
    [("alert()", True), ("sinon.reset()", True), ("`--watch`", True), ("`npm", True),
     ("alert", False), ("Array(3)", False), ("(see", False), ("setTimeout(fn,", False)],
)
def test_code_words_are_calls_with_empty_parentheses_or_backticks(word, code):
    from docwheel.index import is_code_word

    assert is_code_word(word) is code
