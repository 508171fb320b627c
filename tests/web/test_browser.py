"""The table companion in a real browser (Debian's Chromium) against a live service on
PostgreSQL: each test runs one file of ``clients/web/tests`` (node's test runner driving
playwright-core). Every wait inside is a bound (30 s a step), never a measurement: the
layout and contrast checks measure pixels and colours, not time.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.servers import Server
from tests.web.conftest import WEB_CLIENT

pytestmark = pytest.mark.postgres


@dataclass
class BrowserTests:
    server: Server
    node: str
    chromium: str
    allowed_origin: str

    def run(self, name: str) -> None:
        env = dict(
            os.environ,
            BASE_URL=self.server.base_url,
            CHROMIUM=self.chromium,
            ALLOWED_ORIGIN=self.allowed_origin,
        )
        done = subprocess.run(
            [self.node, "--test", f"tests/{name}.test.mjs"],
            cwd=WEB_CLIENT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        report = (
            f"{name}.test.mjs:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}\n"
            f"server log:\n{self.server.log_tail()}"
        )
        assert done.returncode == 0, report
        assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, report


@pytest.fixture
def browser(
    web_modules: Path, node: str, chromium: str, table_server: Server, allowed_origin: str
) -> BrowserTests:
    return BrowserTests(table_server, node, chromium, allowed_origin)


def test_host_and_three_phones_play_three_reports_live(browser: BrowserTests) -> None:
    browser.run("game")


def test_dropped_connection_recovers_and_long_polls_stand_in_for_the_stream(
    browser: BrowserTests,
) -> None:
    browser.run("reconnect")


def test_listed_origin_plays_live_and_another_origin_is_refused(browser: BrowserTests) -> None:
    browser.run("cors")


def test_every_screen_fits_360_and_1280_px_with_aa_contrast(browser: BrowserTests) -> None:
    browser.run("screens")


def test_rule_ids_explain_themselves_on_tap_hover_and_focus(browser: BrowserTests) -> None:
    browser.run("rules")


def test_phone_warns_of_the_excommunication_only_when_the_report_is_due(
    browser: BrowserTests,
) -> None:
    browser.run("warning")


def test_an_undone_resolution_shows_on_every_phone_and_no_screen_reads_again(
    browser: BrowserTests,
) -> None:
    browser.run("undo")


def test_host_recovery_reinvite_and_deletion_tell_every_screen(browser: BrowserTests) -> None:
    browser.run("seats")
