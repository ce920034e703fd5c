"""The phone page under the service's strict Content-Security-Policy, in a real Chromium.

A solved photo is announced once ("Solved." was said twice), and nothing the page does is
blocked by the policy (it needs nothing from elsewhere, no inline script or style).
"""

from __future__ import annotations

import pytest
from service_support import PLAIN
from test_page import PHONE, browser, server  # noqa: F401  (fixtures)

from samples.synthetic import make_photo

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_solved_is_said_once_and_the_policy_blocks_nothing(server, browser):  # noqa: F811
    photo = make_photo(33, size=(800, 600), **PLAIN)
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    blocked = []
    page.on(
        "console",
        lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.goto(server.url + "/")
    assert "default-src 'none'" in page.evaluate(
        "async () => (await fetch('/')).headers.get('content-security-policy')"
    )
    with page.expect_response("**/v1/solve") as solved:
        page.set_input_files(
            "#library",
            files=[{"name": "photo.jpg", "mimeType": "image/jpeg", "buffer": photo.jpeg}],
        )
    assert solved.value.status == 200
    page.wait_for_function(
        "() => document.getElementById('message').classList.contains('ok')", timeout=60_000
    )
    assert page.inner_text("#message") == "Solved. Tap a cell to fix a digit."
    assert blocked == []
    page.context.close()
