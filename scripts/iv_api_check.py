"""See scripts/iv-api-check."""
import concurrent.futures, csv, json, os, subprocess, sys, tempfile, time, urllib.request

BIN = os.environ["SENTIO_BIN"]
SCREENS = os.path.join(os.environ["SENTIO_FIXTURES"], "pogo", "screens")
# The dates whose base stats apply to each era of the manifest (as ScanEvaluationTests uses them).
ERAS = {"S16": "2016-11-01", "S1612": "2016-12-20", "S18": "2018-06-01", "CUR": "2026-11-01"}


def rows():
    path = os.path.join(SCREENS, "manifest.tsv")
    if not os.path.exists(path):
        sys.exit(f"iv-api-check: no manifest at {path} (set SENTIO_FIXTURES)")
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def options(row):
    cli, query = [], []
    if row["trainer_level"]:
        cli += ["--trainer-level", row["trainer_level"]]; query.append("trainerLevel=" + row["trainer_level"])
    date = ERAS.get(row["stats_era_used"])
    if date:
        cli += ["--stats-as-of", date]; query.append("statsAsOf=" + date)
    return cli, "&".join(query)


def serve(pin):
    data = tempfile.mkdtemp(prefix="sentio-ivcheck-")
    args = [BIN, "serve", "--port", "0", "--json", "--data-dir", data, "--log-level", "error", "--request-rate", "100000"]
    if pin:
        args = ["taskset", "-c", "0"] + args + ["--threads", "1"]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    return process, json.loads(process.stdout.readline())["http"]


def post(base, row, query):
    path = os.path.join(SCREENS, row["file"])
    kind = "image/png" if row["file"].lower().endswith(".png") else "image/jpeg"
    request = urllib.request.Request(f"{base}/api/v1/iv/scan?{query}", data=open(path, "rb").read(), method="POST",
                                     headers={"Content-Type": kind})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        body = json.loads(response.read())
        timing = response.headers.get("Server-Timing", "")
    rtt = (time.perf_counter() - start) * 1000
    return body, float(timing.split("dur=")[1]) if "dur=" in timing else None, rtt


def main():
    manifest = rows()
    process, base = serve(pin=False)
    same, differ = 0, []
    try:
        for row in manifest:
            cli, query = options(row)
            expected = json.loads(subprocess.run([BIN, "iv", "scan", os.path.join(SCREENS, row["file"]), "--json"] + cli,
                                                 check=True, capture_output=True, text=True).stdout)
            got, _, _ = post(base, row, query)
            if got == expected:
                same += 1
            else:
                differ.append(row["file"])
    finally:
        process.terminate(); process.wait()

    process, base = serve(pin=True)
    try:
        post(base, manifest[0], options(manifest[0])[1])  # warm: Tesseract and the tables load once
        batch = manifest[:10]
        with concurrent.futures.ThreadPoolExecutor(max_workers=10) as pool:
            results = list(pool.map(lambda r: post(base, r, options(r)[1]), batch))
    finally:
        process.terminate(); process.wait()
    work = sorted(r[1] for r in results)
    summary = {"screens": len(manifest), "same_as_cli": same, "differ": differ,
               "concurrent_uploads": len(batch), "answered": len(results),
               "scan_ms_median": work[len(work) // 2], "scan_ms_max": work[-1],
               "round_trip_ms_max": round(max(r[2] for r in results), 1),
               "pass": same == len(manifest) and len(results) == 10 and work[-1] <= 300}
    print(json.dumps(summary))
    sys.exit(0 if summary["pass"] else 1)


main()
