"""Identifiers become the terms a reader might type: parts, merged parts, dotted wholes."""

from __future__ import annotations

import pytest

from docwheel.words import split_identifier, without_number_parts


@pytest.mark.parametrize(
    ("token", "terms"),
    [
        ("gather", ["gather"]),
        ("asyncio.gather", ["asyncio", "gather", "asyncio.gather"]),
        ("yieldsRight", ["yields", "Right", "yieldsRight"]),
        ("stub.yieldsRight", ["stub", "yields", "Right", "yieldsRight", "stub.yieldsRight"]),
        ("PLANE_API_KEY", ["PLANE", "API", "KEY", "PLANEAPIKEY"]),
        ("snake_case_name", ["snake", "case", "name", "snakecasename"]),
        ("yields-right", ["yields", "right", "yieldsright"]),
        ("OAuth", ["Auth", "OAuth"]),
        ("OAuth2Provider", ["Auth", "2", "Provider", "OAuth", "OAuth2Provider"]),
        ("fastmcp.json", ["fastmcp", "json", "fastmcp.json"]),
    ],
)
def test_identifier_terms(token, terms):
    assert split_identifier(token) == terms


def test_hyphenated_name_and_camel_case_name_share_their_merged_term():
    assert split_identifier("yields-right")[-1].lower() == split_identifier("yieldsRight")[-1].lower()


@pytest.mark.parametrize(
    ("terms", "searched"),
    [
        (["18", "i18n"], ["i18n"]),
        (["base", "64", "base64"], ["base", "base64"]),
        (["3", "12", "3.12"], ["3.12"]),
        (["404"], ["404"]),
        (["2025", "06", "18", "20250618"], ["2025", "06", "18", "20250618"]),
        (["gather"], ["gather"]),
    ],
)
def test_a_typed_word_is_not_searched_by_the_bare_numbers_split_out_of_it(terms, searched):
    assert without_number_parts(terms) == searched
