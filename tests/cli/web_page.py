#!/usr/bin/env python3
"""The service's web page in a real browser (issue "The permeability service"): headless
Chromium, driven over the DevTools protocol, opens the page, enters a token, chooses the bundled
sample in the file input, submits it (the browser sends multipart/form-data), watches the job
table until the job has finished, checks the k shown against the k of `rockperm run`, fetches
the job's report.html as the page's report button does, and saves a screenshot.
Exit 77 (skipped) without Chromium or Python's websocket client (Debian chromium,
python3-websocket; packaging/install-deps.sh --browser installs both).

usage: web_page.py ROCKPERM SAMPLE_DIR WORK_DIR
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

SKIP = 77


def fail(message):
    print("web_page: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


class DevTools:
    """One page target of Chromium's DevTools protocol."""

    def __init__(self, ws_url):
        import websocket
        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    fail("%s: %s" % (method, message["error"]))
                return message.get("result", {})

    def js(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            fail("javascript %r: %s" % (expression[:60], result["exceptionDetails"]))
        return result["result"].get("value")


def main(rockperm, samples, work):
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    try:
        import websocket  # noqa: F401
    except ImportError:
        browser = None
    if not browser:
        print("web_page: no Chromium or no python3-websocket; skipped")
        sys.exit(SKIP)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    for f in ("sphere_pack_64.raw", "sphere_pack_64.ini"):
        shutil.copy(os.path.join(samples, f), f)
    env = dict(os.environ, OMP_NUM_THREADS="2")
    subprocess.run([rockperm, "run", "--config", "sphere_pack_64.ini", "--run.backend=cpu", "--output.fields=off",
                    "--output.dir", "direct"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    k_direct = json.load(open("direct/report.json"))["permeability"]["mD"]
    token = subprocess.run([rockperm, "serve", "--add-token", "web", "--tokens", "tokens"], check=True,
                           capture_output=True, text=True).stdout.strip()
    with open("service.ini", "w") as f:
        f.write("[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = tokens\nrun_config = sphere_pack_64.ini\n")
    server = subprocess.Popen([rockperm, "serve", "--config", "service.ini"], stdout=open("serve.log", "w"),
                              stderr=subprocess.STDOUT, env=env)
    profile = tempfile.mkdtemp()
    chrome = None
    try:
        for _ in range(100):
            if os.path.exists("state/port") and open("state/port").read().strip():
                break
            time.sleep(0.1)
        url = "http://127.0.0.1:%s/" % open("state/port").read().strip()
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
        chrome = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
                                   "--user-data-dir=" + profile, "--window-size=1200,1400", "about:blank"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                break
            time.sleep(0.1)
        else:
            fail("Chromium did not start its DevTools endpoint")
        port = open(port_file).read().split("\n")[0]
        targets = json.load(urllib.request.urlopen("http://127.0.0.1:%s/json/list" % port, timeout=30))
        page = DevTools(next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page"))
        drive(page, url, token, os.path.abspath("sphere_pack_64.raw"), k_direct)
    finally:
        if chrome:
            chrome.terminate()
            chrome.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)
        server.terminate()
        server.wait(timeout=60)
    print("web_page: all checks passed")


def drive(page, url, token, scan, k_direct):
    page.call("Page.enable")
    page.call("Page.navigate", url=url)
    for _ in range(100):
        if page.js("document.readyState") == "complete" and page.js("!!document.getElementById('scan')"):
            break
        time.sleep(0.1)
    else:
        fail("the page did not load")
    # the token, as a person types it; the options; the scan chosen in the file input
    page.js("const t = document.getElementById('token'); t.value = %s; t.dispatchEvent(new Event('change')); true"
            % json.dumps(token))
    page.js("document.getElementById('options').value = '{\"run.backend\": \"cpu\", \"output.fields\": \"off\"}'; true")
    root = page.call("DOM.getDocument")["root"]["nodeId"]
    node = page.call("DOM.querySelector", nodeId=root, selector="#scan")["nodeId"]
    page.call("DOM.setFileInputFiles", files=[scan], nodeId=node)
    page.js("document.getElementById('submit').click(); true")
    job, row = None, None
    for _ in range(600):
        message = page.js("document.getElementById('message').textContent")
        if message.startswith("Refused") or "cannot be reached" in message:
            fail("the page says: " + message)
        if message.startswith("Queued as job "):
            job = message[len("Queued as job "):].rstrip(".")
            row = page.js("(() => { const tr = document.querySelector('#jobs tr[data-id=\"%s\"]'); if (!tr) return null;"
                          " return {state: tr.querySelector('.state').textContent, k: tr.querySelector('.k').textContent}; })()"
                          % job)
            if row and row["state"].startswith("finished"):
                break
        time.sleep(0.2)
    else:
        fail("the job did not finish on the page (message %r, row %r)" % (message, row))
    if row["state"] != "finished":
        fail("the page shows the job as %r" % row["state"])
    if abs(float(row["k"]) - k_direct) > 1e-5 * k_direct:
        fail("the page shows k = %s, rockperm run gives %r" % (row["k"], k_direct))
    report = page.js("fetch('/api/jobs/%s/report.json', {headers: auth()}).then(r => r.json())" % job)
    if report["permeability"]["mD"] != k_direct:
        fail("report.json of the page's job: k = %r, rockperm run: %r" % (report["permeability"]["mD"], k_direct))
    html_ok = page.js("fetch('/api/jobs/%s/report.html', {headers: auth()}).then(r => r.text())"
                      ".then(t => t.includes('id=\"k-mD\"'))" % job)
    if not html_ok:
        fail("report.html as the page's report button fetches it holds no k")
    if not page.js("!!document.getElementById('chart-svg')"):
        fail("no k-porosity chart once a job has finished")
    shot = base64.b64decode(page.call("Page.captureScreenshot", format="png")["data"])
    with open("web_page.png", "wb") as f:
        f.write(shot)
    if not shot.startswith(b"\x89PNG") or len(shot) < 20000:
        fail("the screenshot is not a rendered page (%d bytes)" % len(shot))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
