"""The IV scanner's pages in Chromium, under the server's Content-Security-Policy.

End to end as a player: sign in → upload three real screenshots (from the fixtures' truth
manifest) → each card shows its crops and the values the manifest says are on the screen →
a corrected CP recomputes the combinations → save → the collection (search, sort, by species)
→ the detail page (screenshot, planner, PvP, nickname saved) → export CSV → delete every
Pokémon → import the CSV → the same species and CP as before. Guests scan without saving; a
picture that is not a Pokémon screen is refused in words; the game-info page. Screenshots of
every page at 390×844 and 1280×800 go to out/browser/.
"""
import base64, csv, json, math, os, re, time, urllib.request

import pytest

from conftest import FIXTURES, SIZES, shoot

SCREENS = FIXTURES / "pogo" / "screens"
# Three English screenshots from December 2016 whose every field reads (trainer level 28 known).
CHOSEN = ["chrisnoisel_android_28_11.png", "chrisnoisel_android_28_23.png", "chrisnoisel_android_28_25.png"]
TRAINER_LEVEL = "28"
TAKEN_ON = "2016-12-20"


def truth():
    manifest = SCREENS / "manifest.tsv"
    if not manifest.is_file():
        raise RuntimeError(f"missing {manifest} (set SENTIO_FIXTURES)")  # never a silent skip
    with manifest.open(newline="") as f:
        return {row["file"]: row for row in csv.DictReader(f, delimiter="\t")}


def until(page, expression, timeout=30000):
    """Polls a JavaScript expression until it is truthy (wait_for_function would evaluate a
    string, which the pages' Content-Security-Policy refuses: these tests run under it)."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.1)


def watch(page):
    """Page errors and console errors, except the 401 of the signed-out session check."""
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None)
    # Refusals the pages expect and explain: the signed-out session check (401), an unknown
    # species (404), a picture that is not a Pokémon screen (422 from the scan).
    page.on("response", lambda r: errors.append(f"{r.status} {r.request.method} {r.url}") if r.status >= 400 and not (
        (r.status == 401 and r.url.endswith("/api/v1/session")) or (r.status == 404 and "/iv/species/" in r.url)
        or (r.status == 422 and "/iv/scan" in r.url)) else None)
    return errors


def sign_in(page, server):
    page.goto(server["url"] + "/account/")
    page.get_by_label("User name").fill(server["username"])
    page.get_by_label("Password", exact=True).fill(server["password"])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#signed-in:not(.hidden)")
    assert page.locator("#who").inner_text() == server["username"]
    assert page.locator("#account-link").inner_text() == server["username"]


def shoot_both(page, name):
    """A full-page screenshot at the desktop size and at the phone size (then back)."""
    size = page.viewport_size
    for label, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(150)
        shoot(page, f"{name}-{label}")
        no_horizontal_overflow(page)
    page.set_viewport_size(size)


def no_horizontal_overflow(page):
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate("""(limit) => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > limit)
        .slice(0, 8).map(e => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)""",
        page.viewport_size["width"] + 1)
    assert width <= page.viewport_size["width"] + 1, f"the page is {width} px wide: {wide}"


def card_for(page, file):
    return page.locator(f"article.iv-card[data-file='{file}']")


def wait_results(card):
    card.locator(".iv-results[data-state='ready']").wait_for(timeout=60000)


def combination_count(card):
    return int(card.locator(".iv-results").get_attribute("data-count"))


def typed_pidgey(server):
    """CP, HP and stardust of a 15/15/15 Pidgey at level 20 with today's stats (CP multiplier 0.5974)."""
    with urllib.request.urlopen(server + "/api/v1/iv/species/Pidgey", timeout=30) as response:
        info = json.loads(response.read())
    at20 = next(row for row in info["levels"] if row["level"] == 20)
    hp = math.floor((info["species"]["stamina"] + 15) * 0.5974)
    return {"species": "Pidgey", "cp": at20["maxCP"], "hp": hp, "stardust": at20["stardust"]}


def download(page, path):
    with page.expect_download() as started:
        page.get_by_role("link", name="Export CSV").click()
    started.value.save_as(path)
    return path


def collection_rows(page):
    until(page, "document.getElementById('status').textContent.includes('Pokémon')")
    rows = page.locator("#rows tr")
    return [(rows.nth(i).get_attribute("data-species"), rows.nth(i).locator("td.iv-cp").inner_text().replace(",", ""))
            for i in range(rows.count())]


def test_iv_player_end_to_end(browser, iv_server, tmp_path):
    rows = truth()
    expected = {f: rows[f] for f in CHOSEN}
    context = browser.new_context(viewport=SIZES["desktop"], accept_downloads=True)
    page = context.new_page()
    errors = watch(page)

    page.goto(iv_server["url"] + "/account/")
    page.get_by_label("User name").wait_for()
    shoot_both(page, "iv-account-signed-out")
    sign_in(page, iv_server)
    shoot_both(page, "iv-account-signed-in")

    # Scan: three screenshots at once, read one after another.
    page.goto(iv_server["url"] + "/iv/")
    assert page.locator("#guest-note").is_hidden()
    page.get_by_label("Your trainer level").fill(TRAINER_LEVEL)
    page.get_by_label("Your trainer level").dispatch_event("change")
    page.get_by_label("Screenshot taken on (optional)").fill(TAKEN_ON)
    page.set_input_files("#files", [str(SCREENS / f) for f in CHOSEN])
    until(page, "document.getElementById('status').textContent.startsWith('Read 3 screenshots')", timeout=120000)
    assert page.evaluate("localStorage.getItem('sentio.iv.trainerLevel')") == TRAINER_LEVEL
    for file, row in expected.items():
        card = card_for(page, file)
        wait_results(card)
        # The values read equal the manifest's truth, each beside its crop of the screenshot.
        assert card.locator(".iv-field-species input").input_value().lower() == row["species"].lower()
        assert card.locator(".iv-field-cp input").input_value() == row["cp"]
        assert card.locator(".iv-field-hp input").input_value() == row["hp_max"]
        assert card.locator(".iv-field-stardust input").input_value() == row["stardust_cost"]
        for name in ("species", "cp", "hp", "stardust"):
            crop = card.locator(f".iv-field-{name} canvas.crop")
            assert crop.count() == 1, f"{file}: no crop for {name}"
            spread = crop.evaluate("""c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                let lo = 255, hi = 0; for (let i = 0; i < d.length; i += 4) { const v = d[i] + d[i + 1] + d[i + 2];
                lo = Math.min(lo, v / 3); hi = Math.max(hi, v / 3); } return hi - lo; }""")
            assert spread > 60, f"{file}: the {name} crop is blank"
        # The results: the true level among the levels, the IV range holds a combination.
        assert combination_count(card) >= 1
        levels = card.locator(".iv-levels").inner_text()
        level_label = float(row["level_label"])
        bounds = [float(x) for x in re.findall(r"[\d.]+", levels)]
        assert min(bounds) <= level_label <= max(bounds), f"{file}: level {level_label} not in {levels}"
        assert card.locator(".iv-species-link").inner_text().lower().endswith(row["species"].lower())
    no_horizontal_overflow(page)
    shoot_both(page, "iv-scan-results")

    # Correct a field: a CP one higher changes the combinations; the true CP brings them back.
    first = card_for(page, CHOSEN[0])
    before = combination_count(first)
    before_rows = first.locator(".iv-combos tbody tr").count()
    cp = first.locator(".iv-field-cp input")
    cp.fill(str(int(expected[CHOSEN[0]]["cp"]) + 1))
    until(page, f"""() => {{ const r = document.querySelector("article.iv-card[data-file='{CHOSEN[0]}'] .iv-results");
        return r.dataset.state !== 'busy' && (r.dataset.count !== '{before}' || r.dataset.state === 'error'); }}""", timeout=20000)
    changed = first.locator(".iv-results").get_attribute("data-count")
    assert changed != str(before)
    cp.fill(expected[CHOSEN[0]]["cp"])
    until(page, f"""() => {{ const r = document.querySelector("article.iv-card[data-file='{CHOSEN[0]}'] .iv-results");
        return r.dataset.state === 'ready' && r.dataset.count === '{before}'; }}""", timeout=20000)
    assert first.locator(".iv-combos tbody tr").count() == before_rows

    # Choose the best combination: the planner goes up to level 50, the PvP table has leagues.
    first.locator(".iv-combos tbody tr").first.click()
    first.locator(".iv-planner").wait_for(timeout=20000)
    assert first.locator(".iv-combos tr.chosen").count() == 1
    plan_rows = first.locator(".iv-plan tbody tr")
    assert plan_rows.last.locator("td").first.inner_text() == "50"
    slider = first.locator(".iv-planner input[type=range]")
    slider.fill("40")
    assert plan_rows.last.locator("td").first.inner_text() == "40"
    assert "To level 40" in first.locator(".iv-plan-summary").inner_text()
    pvp = first.locator(".iv-pvp")
    assert pvp.count() >= 1 and "Great (1500)" in pvp.first.inner_text()
    assert "stat product" in first.locator(".iv-pvp-section").inner_text()
    first.scroll_into_view_if_needed()
    shoot_both(page, "iv-scan-chosen")

    # Save each; saving the same screenshot again only updates its date.
    for file in CHOSEN:
        card = card_for(page, file)
        card.get_by_role("button", name="Save to my Pokémon").click()
        card.locator(".iv-save .status.ok").wait_for(timeout=20000)
        assert "new Pokémon" in card.locator(".iv-save .status").inner_text()
    again = card_for(page, CHOSEN[1])
    again.get_by_role("button", name="Save to my Pokémon").click()
    until(page, f"document.querySelector(\"article.iv-card[data-file='{CHOSEN[1]}']\").dataset.saved === 'sameImage'", timeout=20000)
    assert "saved before" in again.locator(".iv-save .status").inner_text()

    # One typed by hand with today's stats (no screenshot date): a 15/15/15 Pidgey at level 20.
    page.get_by_label("Screenshot taken on (optional)").fill("")
    page.get_by_label("Screenshot taken on (optional)").dispatch_event("change")
    hand = typed_pidgey(iv_server["url"])
    page.get_by_role("button", name="Type one in by hand").click()
    card = card_for(page, "")
    for name in ("species", "cp", "hp", "stardust"):
        card.locator(f".iv-field-{name} input").fill(str(hand[name]))
    wait_results(card)
    assert "15" in card.locator(".iv-summary").inner_text()
    # The leader's appraisal (a wonder, best stat 15 in all three) leaves one combination: the
    # planner and PvP ranks show at once, no row to choose.
    card.get_by_label("What the appraisal showed").select_option("leader")
    card.get_by_label("Overall").select_option("1")
    card.get_by_label("Best stat", exact=True).select_option("1")
    for stat in ("Attack", "Defense", "HP"):
        card.get_by_role("checkbox", name=stat).check()
    until(page, """() => document.querySelector("article.iv-card[data-file=''] .iv-results").dataset.count === '1'""", timeout=20000)
    # The rename helper: the nickname that keeps the IVs, and the page reads such nicknames back.
    assert card.locator(".iv-nickname").input_value() == "100 15-15-15"
    parsed = page.evaluate("""async () => { const m = await import('/iv/entry.js');
        return ['100 15-15-15', '91⑮⑭⑬', 'Sparky 15/14/13', 'Bulba 4-0-12', 'Ex99@OOI1AB', '15/16/1', 'Pidgey']
          .map((t) => m.ivsFromNickname(t)); }""")
    assert parsed == [{"attack": 15, "defense": 15, "stamina": 15}, {"attack": 15, "defense": 14, "stamina": 13},
                      {"attack": 15, "defense": 14, "stamina": 13}, {"attack": 4, "defense": 0, "stamina": 12}, None, None, None], parsed
    # Evolve now (Poke Genie's preview): a 15/15/15 Pidgeotto and Pidgeot at level 20, from today's
    # stats (the species page's table gives their level-20 CP for 15/15/15).
    evolve = card.locator(".iv-evolve").inner_text()
    for name in ("Pidgeotto", "Pidgeot"):
        with urllib.request.urlopen(iv_server["url"] + f"/api/v1/iv/species/{name}", timeout=30) as response:
            max_cp = next(row for row in json.loads(response.read())["levels"] if row["level"] == 20)["maxCP"]
        assert f"{name} CP {max_cp}," in evolve, (name, max_cp, evolve)
    card.locator(".iv-planner").wait_for(timeout=20000)
    assert card.locator(".iv-pvp-section").count() == 1
    card.get_by_role("button", name="Save to my Pokémon").click()
    card.locator(".iv-save .status.ok").wait_for(timeout=20000)
    everything = {(r["species"].lower(), r["cp"]) for r in expected.values()} | {("pidgey", str(hand["cp"]))}

    # The collection: every saved Pokémon, search, sort by CP both ways, by species.
    page.goto(iv_server["url"] + "/iv/collection.html")
    listed = collection_rows(page)
    assert sorted((s.lower(), c) for s, c in listed) == sorted(everything)
    shoot_both(page, "iv-collection")
    target = expected[CHOSEN[1]]
    page.get_by_label("Search", exact=True).fill(target["species"][:4])
    until(page, "document.querySelectorAll('#rows tr').length === 1")
    assert collection_rows(page)[0][1] == target["cp"]
    page.get_by_label("Search", exact=True).fill("")
    page.get_by_label("Sort by").select_option("cp")
    until(page, "document.querySelectorAll('#rows tr').length === 4")
    page.wait_for_timeout(400)
    cps = [int(c) for _, c in collection_rows(page)]
    assert cps == sorted(cps, reverse=True), cps
    page.locator("#order").click()
    page.wait_for_timeout(400)
    cps = [int(c) for _, c in collection_rows(page)]
    assert cps == sorted(cps), cps
    href = page.locator("#export").get_attribute("href")
    assert "sort=cp" in href and "order=asc" in href, href
    page.get_by_label("Min IV %").fill("99")
    until(page, "document.querySelectorAll('#rows tr').length === 1")
    assert collection_rows(page)[0][0].lower() == "pidgey"
    page.get_by_label("Min IV %").fill("")
    until(page, "document.querySelectorAll('#rows tr').length === 4")
    page.get_by_text("By species", exact=True).click()
    until(page, "document.querySelectorAll('#by-species .card').length === 4")
    shoot_both(page, "iv-collection-by-species")
    page.get_by_text("List", exact=True).click()
    until(page, "document.querySelectorAll('#rows tr').length === 4")

    # Export CSV (the link carries the current query): everything, then only the Pidgey.
    exported = download(page, tmp_path / "all.csv")
    text = exported.read_text()
    assert len(text.strip().splitlines()) == 1 + 4
    for species, cp in everything:
        assert species in text.lower() and f",{cp}," in text
    page.get_by_label("Search", exact=True).fill("Pidgey")
    until(page, "document.querySelectorAll('#rows tr').length === 1")
    pidgey_rows = collection_rows(page)
    pidgey_csv = download(page, tmp_path / "pidgey.csv")
    assert len(pidgey_csv.read_text().strip().splitlines()) == 2
    page.get_by_label("Search", exact=True).fill("")
    until(page, "document.querySelectorAll('#rows tr').length === 4")

    # The detail page: the screenshot, the IVs, planner, a nickname saved.
    page.locator("#rows tr", has_text=re.compile(target["species"], re.I)).locator("a").click()
    page.wait_for_url("**/iv/pokemon.html?id=*")
    page.locator("#detail:not(.hidden)").wait_for()
    assert page.locator(".fact-cp").inner_text().replace(",", "") == target["cp"]
    page.locator(".iv-scan img").first.scroll_into_view_if_needed()
    until(page, "(() => { const i = document.querySelector('.iv-scan img'); return i && i.complete && i.naturalWidth > 0; })()")
    assert page.locator(".iv-field-cp canvas.crop").count() == 1, "crops from the stored screenshot"
    page.locator("#results .iv-results[data-state='ready']").wait_for(timeout=20000)
    if page.locator("#results .iv-planner").count() == 0:
        page.locator("#results .iv-combos tbody tr").first.click()
    page.locator("#results .iv-planner").wait_for(timeout=20000)
    assert page.locator("#results .iv-plan tbody tr").count() > 10
    page.get_by_label("Nickname").fill("Sparky")
    page.get_by_role("button", name="Save", exact=True).click()
    until(page, "document.getElementById('save-status').textContent === 'Saved.'")
    assert page.locator("#title").inner_text().startswith("Sparky")
    shoot_both(page, "iv-pokemon")

    # Game info from the result's species link opens beside the results (a new tab); the
    # Pokémon's page stays as it was.
    with page.context.expect_page() as opened:
        page.locator("#results .iv-species-link").click()
    info = opened.value
    info.wait_for_url("**/iv/species.html?*")
    info.locator("#info:not(.hidden)").wait_for()
    assert target["species"].lower() in info.locator("#title").inner_text().lower()
    info.close()
    assert page.locator("#title").inner_text().startswith("Sparky")

    # Delete the Pidgey through its detail page (confirm accepted), then import its CSV back.
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(iv_server["url"] + "/iv/collection.html?search=Pidgey")
    assert collection_rows(page) == pidgey_rows
    page.locator("#rows tr a").first.click()
    page.locator("#detail:not(.hidden)").wait_for()
    page.get_by_role("button", name="Delete this Pokémon").click()
    page.wait_for_url("**/iv/collection.html")
    until(page, "document.getElementById('status').textContent.includes('Pokémon')")
    assert len(collection_rows(page)) == 3
    page.set_input_files("#import", str(pidgey_csv))
    until(page, "document.getElementById('status').textContent.startsWith('Imported 1')", timeout=20000)
    assert sorted((s.lower(), c) for s, c in collection_rows(page)) == sorted(everything)
    shoot_both(page, "iv-collection-imported")
    assert not errors, errors
    context.close()


def test_iv_csv_round_trip_old_screenshots(browser, iv_server, tmp_path):
    """Every saved Pokémon exported, deleted and imported again gives the same species and CP, the
    2016 screenshots' Pokémon included (the CSV names no stats date: the import finds the stats
    under which each row's own IV Avg and levels come out again)."""
    context = browser.new_context(viewport=SIZES["desktop"], accept_downloads=True)
    page = context.new_page()
    sign_in(page, iv_server)
    page.goto(iv_server["url"] + "/iv/collection.html")
    before = sorted(collection_rows(page))
    assert before, "test_iv_player_end_to_end saves Pokémon first"
    exported = download(page, tmp_path / "all.csv")
    page.on("dialog", lambda dialog: dialog.accept())
    for _ in before:
        page.goto(iv_server["url"] + "/iv/collection.html")
        collection_rows(page)
        page.locator("#rows tr a").first.click()
        page.locator("#detail:not(.hidden)").wait_for()
        page.get_by_role("button", name="Delete this Pokémon").click()
        page.wait_for_url("**/iv/collection.html")
    page.wait_for_selector("#empty:not(.hidden)")
    page.set_input_files("#import", str(exported))
    until(page, "document.getElementById('status').textContent.startsWith('Imported') || "
          "document.getElementById('status').textContent.startsWith('Not imported')", timeout=20000)
    status = page.locator("#status").inner_text()
    shoot(page, "iv-collection-import-old-desktop")
    assert status.startswith(f"Imported {len(before)}"), status
    page.goto(iv_server["url"] + "/iv/collection.html")
    assert sorted(collection_rows(page)) == before, "the same species and CP after the round trip"
    # The same rows, column by column (Index aside: rows scanned in the same minute may swap).
    rows = lambda path: sorted(line.split(",", 1)[1] for line in path.read_text().splitlines()[1:])
    assert rows(download(page, tmp_path / "again.csv")) == rows(exported)
    context.close()


def test_iv_guest(browser, iv_server):
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    errors = watch(page)
    page.goto(iv_server["url"] + "/iv/")
    page.locator("#guest-note:not(.hidden)").wait_for()
    assert page.get_by_role("link", name="Sign in to keep a history").count() == 1

    # A picture that is not a Pokémon screen: refused in words, the values can be typed in.
    face = next(p for p in sorted((FIXTURES / "faces" / "identity").rglob("*.jpg")))
    page.set_input_files("#files", str(face))
    card = card_for(page, face.name)
    card.locator(".iv-card-head .status.bad").wait_for(timeout=60000)
    assert "Could not read" in card.locator(".iv-card-head .status").inner_text()
    assert card.locator(".iv-combos").count() == 0, "no IVs guessed from nothing"
    assert "Type the species and HP" in card.locator(".iv-results").inner_text()
    for name, value in typed_pidgey(iv_server["url"]).items():
        card.locator(f".iv-field-{name} input").fill(str(value))
    wait_results(card)
    assert combination_count(card) > 0
    assert card.get_by_role("button", name="Save to my Pokémon").count() == 0
    assert card.get_by_role("link", name="Sign in to keep a history").count() == 1

    # Keyboard: a row of the combinations is chosen with Enter.
    row = card.locator(".iv-combos tbody tr").nth(1)
    row.focus()
    page.keyboard.press("Enter")
    card.locator(".iv-combos tr.chosen").wait_for(timeout=20000)
    card.locator(".iv-planner").wait_for()

    # The team leader's appraisal narrows the combinations.
    count = combination_count(card)
    card.get_by_label("What the appraisal showed").select_option("leader")
    card.get_by_label("Overall").select_option("1")
    card.get_by_role("checkbox", name="Attack").check()
    until(page, f"""() => {{ const r = document.querySelector("article.iv-card[data-file='{face.name}'] .iv-results");
        return r.dataset.state !== 'busy' && r.dataset.count !== '{count}'; }}""", timeout=20000)
    assert combination_count(card) < count
    no_horizontal_overflow(page)
    shoot_both(page, "iv-scan-guest")

    # A screenshot dropped on the drop zone and one pasted are read like chosen ones. Without
    # its date, the 2016 screenshot's name is read but fits nothing with today's stats: said so.
    file = CHOSEN[2]
    data = base64.b64encode((SCREENS / file).read_bytes()).decode()
    for event in ("drop", "paste"):
        if event == "paste":
            page.get_by_label("Your trainer level").fill(TRAINER_LEVEL)
            page.get_by_label("Screenshot taken on (optional)").fill(TAKEN_ON)
        page.evaluate("""([data, name, event]) => {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name, { type: "image/png" }));
            const target = event === "drop" ? document.getElementById("dropzone") : document;
            target.dispatchEvent(event === "drop" ? new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true })
                : new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
        }""", [data, f"{event}-{file}", event])
        dropped = card_for(page, f"{event}-{file}")
        wait_results(dropped) if event == "paste" else dropped.locator(".iv-card-head .status.warn").wait_for(timeout=60000)
        assert dropped.locator(".iv-field-cp input").input_value() == truth()[file]["cp"]
        if event == "drop":
            said = dropped.locator(".iv-card-head .status").inner_text()
            assert "Read the name “Magmar”" in said and "date" in said, said
            assert dropped.locator(".iv-combos").count() == 0
        else:
            assert dropped.locator(".iv-field-species input").input_value() == "Magmar"
    # Never confidently wrong (issue 38): a 2016 Snorlax without its date reads, but the 2016
    # tables give other IVs than today's: the card is amber and says the date decides.
    page.get_by_label("Screenshot taken on (optional)").fill("")
    page.get_by_label("Screenshot taken on (optional)").dispatch_event("change")
    snorlax = base64.b64encode((SCREENS / "bschlenk_snorlax.png").read_bytes()).decode()
    page.evaluate("""([data, name]) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        // A file dated 1970 (before the game) gives no date: the scan goes without one.
        transfer.items.add(new File([bytes], name, { type: "image/png", lastModified: 0 }));
        document.getElementById("dropzone").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }""", [snorlax, "undated-snorlax.png"])
    undated = card_for(page, "undated-snorlax.png")
    undated.locator(".iv-card-head .status.warn").wait_for(timeout=60000)
    assert undated.get_by_label("Taken on").input_value() == ""
    said = undated.locator(".iv-card-head .status").inner_text()
    assert said.startswith("Not sure") and "when the screenshot was taken" in said, said
    assert undated.get_attribute("data-doubts") == "date"
    assert undated.locator(".iv-field-species input").input_value() == "Snorlax"

    # Nothing lost by navigating (issue 38): the cards live on this device until saved or
    # cleared; a reload (as Back from another site, or a closed tab) shows them as they were.
    def cards_now():
        return page.evaluate("""[...document.querySelectorAll('article.iv-card')].map((a) =>
            [a.dataset.file, a.querySelector('.iv-field-cp input')?.value ?? '', a.querySelector('.iv-card-date input')?.value ?? ''])""")
    before = cards_now()
    assert len(before) >= 4, before
    page.reload()
    until(page, "document.getElementById('status').textContent.includes('from before')", timeout=30000)
    assert sorted(cards_now()) == sorted(before)
    assert card_for(page, "undated-snorlax.png").locator(".iv-card-head .status").inner_text().startswith("Not sure")
    page.emulate_media(color_scheme="dark")
    shoot(page, "iv-scan-guest-dark-phone")
    page.emulate_media(color_scheme="light")
    # Cleared, they are gone for good.
    page.get_by_role("button", name="Clear the cards").click()
    assert page.locator("article.iv-card").count() == 0
    page.reload()
    page.get_by_role("button", name="Choose screenshots").wait_for()
    page.wait_for_timeout(1000)
    assert page.locator("article.iv-card").count() == 0

    page.goto(iv_server["url"] + "/iv/collection.html")
    page.locator("#signed-out:not(.hidden)").wait_for()
    assert page.get_by_role("link", name="Sign in").count() >= 1
    shoot(page, "iv-collection-signed-out-phone")
    assert not errors, errors
    context.close()


# The day inside each base-stat era the manifest names (as Tests/IVScannerTests uses them).
ERA_DATES = {"S16": "2016-11-01", "S1612": "2016-12-20", "S18": "2018-06-01", "CUR": "2026-11-01"}


def test_iv_batch_of_forty(browser, iv_server, tmp_path):
    """Issue 38: 40 screenshots chosen at once, each file dated the day of its era (as a phone's
    gallery dates a screenshot): every card takes its own date, none shows an error (the
    re-checks queue within the server's limits), and every card reads the manifest's species,
    CP and max HP. Then the page's date is set and cleared again: it re-dates only that batch,
    and clearing it gives each card its own date back, every card right as before."""
    rows = [r for r in truth().values() if r["lang"] != "zh-TW"][:40]  # the Chinese name is the one species not read (ScanEvaluationTests)
    assert len(rows) == 40, len(rows)
    paths = []
    for row in rows:
        path = tmp_path / row["file"]
        path.write_bytes((SCREENS / row["file"]).read_bytes())
        day = time.mktime(time.strptime(ERA_DATES[row["stats_era_used"]] + " 12", "%Y-%m-%d %H"))
        os.utime(path, (day, day))
        paths.append(str(path))
    context = browser.new_context(viewport=SIZES["desktop"])
    page = context.new_page()
    errors = watch(page)
    page.goto(iv_server["url"] + "/iv/")
    page.set_input_files("#files", paths)
    until(page, "document.getElementById('status').textContent.startsWith('Read 40 screenshots')", timeout=300000)

    def check(when):
        until(page, "[...document.querySelectorAll('.iv-results')].every((r) => r.dataset.state !== 'busy')", timeout=120000)
        wrong = []
        for row in rows:
            card = card_for(page, row["file"])
            wait_results(card)
            got = (card.get_by_label("Taken on").input_value(), card.locator(".iv-field-species input").input_value().lower(),
                   card.locator(".iv-field-cp input").input_value(), card.locator(".iv-field-hp input").input_value())
            want = (ERA_DATES[row["stats_era_used"]], row["species"].lower(), row["cp"], row["hp_max"])
            if got != want:
                wrong.append((row["file"], got, want))
            said = card.locator(".iv-card-head .status").inner_text() + " " + card.locator(".iv-results").inner_text()
            if card.locator(".status.bad").count() or "too many" in said.lower():
                wrong.append((row["file"], said))
        assert not wrong, f"{when}: {wrong}"

    check("as dropped")
    shoot(page, "iv-batch-desktop")
    for value in ("2026-11-01", ""):
        page.get_by_label("Screenshot taken on (optional)").fill(value)
        page.get_by_label("Screenshot taken on (optional)").dispatch_event("change")
        until(page, f"[...document.querySelectorAll('.iv-card-date input')].every((i) => i.value === '{value}' || '{value}' === '')", timeout=60000)
        page.wait_for_timeout(1000)  # the re-checks are scheduled 300 ms after a change
    check("after the page's date was set and cleared")
    assert not errors, errors
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_iv_species_page(browser, iv_server, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = watch(page)
    page.goto(iv_server["url"] + "/iv/species.html?name=Pidgey")
    page.locator("#info:not(.hidden)").wait_for()
    assert "Pidgey" in page.locator("#title").inner_text()
    assert page.get_by_role("link", name="Pidgeotto").count() >= 1
    assert page.locator("#leagues tbody tr").count() >= 3
    assert page.locator("#levels tbody tr").count() >= 90  # levels 1 to 50 (or 51) by halves
    page.locator("#levels-details summary").click()
    assert page.locator("#levels").is_visible()
    page.evaluate("window.scrollTo(0, 0)")
    no_horizontal_overflow(page)
    shoot(page, f"iv-species-{size}")
    page.get_by_role("link", name="Pidgeotto").first.click()
    until(page, "document.getElementById('title').textContent.includes('Pidgeotto')")
    page.goto(iv_server["url"] + "/iv/species.html?name=Nosuchmon")
    until(page, "document.getElementById('status').textContent.includes('No species called')")
    assert not errors, errors
    context.close()


def test_home_links_the_iv_scanner(browser, iv_server):
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    page.goto(iv_server["url"] + "/")
    page.get_by_role("link", name="Open the IV scanner").click()
    page.wait_for_url("**/iv/")
    assert page.locator("h1").inner_text() == "IV scanner"
    context.close()
