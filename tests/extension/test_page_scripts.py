"""What a script on an arXiv page can do to the extension (docs/security.md, issue 17)."""

from __future__ import annotations

import pytest

from tests.extension import data
from tests.extension.test_saves import items, open_abs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_page_script_cannot_save_by_clicking_or_pressing_s(extension, arxiv, topics, personal):
    _, _, default_list = personal
    data.tagged_paper("0906.5132", [(topics["gnn"], 0.9)])
    page = open_abs(extension, arxiv)

    # The page's own world: its events reach the content script with isTrusted false.
    page.evaluate("document.querySelector('.paperscope-save').click()")
    page.evaluate(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 's', bubbles: true}))"
    )
    page.wait_for_timeout(1500)
    assert items(default_list) == []
    assert page.get_attribute(".paperscope-save", "data-state") == "idle"

    page.click(".paperscope-save")  # the person's own click still saves
    page.wait_for_selector(".paperscope-save[data-state=saved]", timeout=20000)
    assert items(default_list) == ["0906.5132"]
