"""A small client of Sentio's attendance API for the measurement scripts (standard library only)."""
import http.cookiejar, json, os, subprocess, tempfile, time, urllib.error, urllib.request

BIN = os.environ.get("SENTIO_BIN", ".build/release/sentio")


def serve(extra=(), data=None, database=None):
    """Starts `sentio serve` on a free port with a fresh data folder; returns (process, base URL, data dir)."""
    data = data or tempfile.mkdtemp(prefix="sentio-attendance-")
    args = [BIN, "serve", "--port", "0", "--json", "--data-dir", data, "--log-level", "error", "--request-rate", "100000", *extra]
    if database:
        args += ["--database", database]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    return process, json.loads(process.stdout.readline())["http"], data


def create_admin(data, username="admin", password="admin-password-1", database=None):
    args = [BIN, "admin", "create", "--username", username, "--data-dir", data]
    if database:
        args += ["--database", database]
    subprocess.run(args, input=password + "\n", text=True, check=True, capture_output=True)
    return username, password


class APIError(Exception):
    def __init__(self, status, body, retry_after=None):
        super().__init__(f"{status}: {body}")
        self.status, self.body, self.retry_after = status, body, retry_after


class Client:
    def __init__(self, base):
        self.base, self.csrf = base, None
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self):
        """The session cookie as a Cookie header (for WebSocket clients)."""
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def call(self, method, path, body=None, content_type=None, raw=False, retries=20):
        """One request; a 429 (the address's compute share used up) is waited out as its
        Retry-After says, up to `retries` times, as a patient client would."""
        for _ in range(retries):
            try:
                return self._call(method, path, body, content_type, raw)
            except APIError as error:
                if error.status != 429:
                    raise
                time.sleep(float(error.retry_after or 1))
        return self._call(method, path, body, content_type, raw)

    def _call(self, method, path, body=None, content_type=None, raw=False):
        headers = {}
        if isinstance(body, (dict, list)):
            body, content_type = json.dumps(body).encode(), "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        if self.csrf and method != "GET":
            headers["X-CSRF-Token"] = self.csrf
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=120) as response:
                data = response.read()
        except urllib.error.HTTPError as error:
            raise APIError(error.code, error.read().decode(errors="replace"), error.headers.get("Retry-After")) from None
        if raw:
            return data
        return json.loads(data) if data else None

    def sign_in(self, username, password):
        answer = self.call("POST", "/api/v1/session", {"username": username, "password": password})
        self.csrf = answer["csrfToken"]
        return answer

    def image(self, method, path, file):
        kind = "image/png" if file.lower().endswith(".png") else "image/jpeg"
        with open(file, "rb") as f:
            return self.call(method, path, f.read(), kind)
