//! End-to-end test of the desktop app: the real `lectern-app` binary in a real WebKitGTK window
//! under Xvfb, driven through tauri-driver and WebKitWebDriver. One scenario, in the order a person
//! would go: folders, import, wait for indexing, ask (passages only, the built-in model, a server),
//! open a citation in the viewer, read a footnote's quote on hover, find a passage with Ctrl+K and
//! open it, page and zoom in the viewer, move a document and see the next answer's scope follow
//! it, restart and reopen the chat, and open it again under the system's dark theme. Hostile HTML
//! in a PDF and in a model's answer must stay text.
//! `first_run.rs` runs the first-run setup against a loopback package index. A library that
//! cannot be opened is said in a dialog.
//! `bench.rs` measures the app's figures (ignored; `scripts/bench-app.sh`).
//! Screenshots go to `$LECTERN_E2E_SCREENSHOTS` (else the test's temporary target directory).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bench;
mod first_run;
mod fixtures;
mod harness;
mod screenshot;
mod webdriver;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use harness::{corpus_pdf, models_dir, Desktop, Display};
use webdriver::Session;

/// The longest the test waits for indexing or an answer on one thread.
const LONG: Duration = Duration::from_secs(300);
/// The longest the test waits for the window to react (generous: the suite runs beside it).
const SHORT: Duration = Duration::from_secs(60);

const WRITER_PDF: &str = "text-libreoffice-writer-1p.pdf";
const LOREM_PDF: &str = "text-word-mac-lorem-ipsum-2p.pdf";
const COLUMNS_PDF: &str = "multicol-latex-multicolumn-3p.pdf";
/// Answered on the second page of [`LOREM_PDF`]: Andrew Jackson.
const LOREM_QUESTION: &str = "Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?";

fn screenshots() -> PathBuf {
    let dir = std::env::var_os("LECTERN_E2E_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The app under test: this build's, or another program (`LECTERN_E2E_APP`, for instance the
/// installed package's `/usr/bin/lectern-app`, so that the benchmark measures a release build).
fn app() -> PathBuf {
    std::env::var_os("LECTERN_E2E_APP")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lectern-app")))
}

/// The package's `lectern` command runs the app's program as the command line: the same library
/// code, shipped once.
#[test]
fn the_apps_program_is_the_command_line_too() {
    let home = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(app())
        .args(["--command-line", "--home"])
        .arg(home.path())
        .args(["status", "--json"])
        .env("LECTERN_MODELS", harness::models_dir())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let status: Value = serde_json::from_slice(&output.stdout).unwrap();
    let folders = status["folders"].as_array().unwrap();
    assert!(
        folders
            .iter()
            .any(|f| f["folder"]["path"] == lectern::catalog::DEFAULT_FOLDER),
        "{status}"
    );
}

/// Starts the app and waits for its folder tree; returns the session and how long that took.
fn start(desktop: &Desktop) -> (Session, Duration) {
    let started = Instant::now();
    let session = Session::start(desktop.driver_port, &app()).unwrap();
    session.wait_for("#sidebar .tree li.folder", SHORT).unwrap();
    (session, started.elapsed())
}

/// Clicks what `selector` names, once it is on screen.
fn click_on(session: &Session, selector: &str) {
    // The tree and the indexing panel are drawn anew as indexing goes on: an element found just
    // before that is gone, and the one that replaced it is clicked instead.
    for attempt in 0.. {
        match session.click(&session.wait_for(selector, SHORT).unwrap()) {
            Ok(()) => return,
            Err(e) if e.contains("stale element") && attempt < 10 => {}
            Err(e) => panic!("clicking {selector}: {e}"),
        }
    }
}

/// Calls a command the way the UI does, through Tauri's IPC from inside the page.
fn invoke(session: &Session, command: &str, args: Value) -> Value {
    let reply = session
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])
               .then((ok) => done({ ok }), (err) => done({ err }));",
            json!([command, args]),
        )
        .unwrap();
    assert!(reply.get("err").is_none(), "{command} failed: {reply}");
    reply["ok"].clone()
}

fn document_id(session: &Session, file_name: &str) -> String {
    let state = invoke(session, "library_state", json!({}));
    state["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file_name"] == file_name)
        .and_then(|d| d["id"].as_str())
        .unwrap_or_else(|| panic!("{file_name} is not in the library: {state}"))
        .to_string()
}

fn create_folder(session: &Session, name: &str) {
    click_on(session, "button.new-folder");
    session.answer_prompt(name).unwrap();
    session
        .wait_for(&format!("li.folder[data-folder-path=\"{name}\"]"), SHORT)
        .unwrap();
}

/// Opens the chat `id` from the list of chats in the chat bar.
fn open_chat(session: &Session, id: &str) {
    click_on(session, "button.chats-button");
    click_on(session, &format!("li.chat[data-chat-id=\"{id}\"] .chat-title"));
}

/// Picks `value` in the `<select>` matching `selector` by clicking its option.
fn choose(session: &Session, selector: &str, value: &str) {
    let option = session
        .wait_for(&format!("{selector} option[value=\"{value}\"]"), SHORT)
        .unwrap();
    session.click(&option).unwrap();
    let chosen = session
        .execute("return document.querySelector(arguments[0]).value;", json!([selector]))
        .unwrap();
    assert_eq!(chosen, value, "{selector} did not switch to {value}");
}

/// Waits until the tree lists `n` documents, all ready.
fn documents_ready(session: &Session, n: usize) {
    session
        .wait_until(
            &format!("{n} documents ready"),
            &format!(
                "const docs = [...document.querySelectorAll('li.document')];
                 return docs.length === {n} && docs.every((d) => d.classList.contains('status-ready'));"
            ),
            LONG,
        )
        .unwrap();
}

/// Waits until the indexing panel's summary matches the regular expression `pattern`.
fn panel_says(session: &Session, pattern: &str) {
    session
        .wait_until(
            &format!("the indexing panel to say /{pattern}/"),
            &format!(
                "const s = document.querySelector('.indexing-panel .summary');
                 return s !== null && /{pattern}/.test(s.textContent) && s.textContent;"
            ),
            LONG,
        )
        .unwrap();
}

/// Opens a document's info from its menu in the tree and waits for its log to hold `entry`.
fn document_log_says(session: &Session, id: &str, entry: &str) {
    let row = format!("li.document[data-document-id=\"{id}\"]");
    click_on(session, &format!("{row} .document-name"));
    click_on(session, &format!("{row} .row-menu"));
    session.wait_for(".context-menu", SHORT).unwrap();
    let items = session.find_all(".context-menu [role=menuitem]").unwrap();
    let info = items
        .iter()
        .find(|item| session.text(item).unwrap().starts_with("Info…"))
        .expect("the document's menu has Info…");
    session.click(info).unwrap();
    let log = session
        .wait_until(
            "the document's log",
            &format!(
                "const log = document.querySelector('dialog.document-info[open] .document-log');
                 return log && log.textContent.includes({entry:?}) && log.textContent;"
            ),
            SHORT,
        )
        .unwrap();
    assert!(log.as_str().unwrap().contains("Added from"), "{log}");
    click_on(session, "dialog.document-info button.close");
}

/// Shows every passage the last answer's retrieval found, each with its page and score.
fn every_passage_retrieved(session: &Session) {
    click_on(session, ".message.answer:last-child button.show-passages");
    let shown = session
        .wait_until(
            "the retrieved passages",
            "const box = document.querySelector('.message.answer:last-child .retrieved');
             const rows = box && !box.hidden ? [...box.querySelectorAll('.passage-where')] : [];
             return rows.length > 0 && rows.map((r) => r.textContent);",
            SHORT,
        )
        .unwrap();
    let rows = shown.as_array().unwrap();
    assert!(
        rows.iter()
            .all(|r| r.as_str().unwrap().starts_with("p. ") && r.as_str().unwrap().contains(" · score ")),
        "{shown}"
    );
}

/// The last answer exported to `path` the way its Export button does once the save dialog (the
/// dialog plugin's, which WebDriver cannot reach) has named `path` without its extension: it is
/// written there as markdown, with its question and the footnotes of its sources; returns the
/// file's text.
fn export_last_answer(session: &Session, path: &Path) -> String {
    let message = session
        .execute(
            "const answer = document.querySelector('.message.answer:last-child');
             return answer.querySelector('button.export-answer') && Number(answer.dataset.message);",
            json!([]),
        )
        .unwrap();
    assert!(message.is_number(), "the answer has no Export: {message}");
    let chats = invoke(session, "list_chats", json!({}));
    let chat = chats[0]["id"].clone();
    let saved = invoke(
        session,
        "export_chat",
        json!({ "id": chat, "message": message, "path": path.with_extension("") }),
    );
    assert_eq!(saved, json!(path));
    std::fs::read_to_string(path).unwrap()
}

/// No serious or critical accessibility violation that axe-core's WCAG 2.1 A and AA rules find
/// in the window as it is now, colour contrast included (which needs a real renderer). One
/// finding is not one: a tree item is named by its name alone and shows more (a document's
/// status, a folder's count), which axe reads as a name missing the item's text.
/// `view` names what is checked, for the failure's message.
fn accessible(session: &Session, view: &str) {
    let axe =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/node_modules/axe-core/axe.min.js"))
            .expect("axe-core (npm ci in ui/)");
    session
        .execute(&format!("{axe}\nwindow.axe = axe;"), json!([]))
        .unwrap();
    let found = session
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.axe
               .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
               .then((results) => done(results.violations
                 .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                 .flatMap((v) => v.nodes.filter((n) => !(v.id === 'label-content-name-mismatch' && n.target[0].startsWith('li[data-key'))).map((n) => `${v.id}: ${n.target.join(' ')} (${n.failureSummary.replace(/\\s+/g, ' ').slice(0, 160)})`))),
                 (e) => done([`axe failed: ${e}`]));",
            json!([]),
        )
        .unwrap();
    assert_eq!(found, json!([]), "{view}: serious or critical accessibility violations");
}

/// The window's sizes a user may have: 1024 × 640, and the usual window at 125 % and 150 %
/// (the interface size of the settings, which leaves the layout the room the system's scaling
/// would), with 1024 × 640 at 125 % too.
const SMALL_WINDOWS: [(u32, u32, f64); 4] = [(1024, 640, 1.0), (1280, 820, 1.25), (1280, 820, 1.5), (1024, 640, 1.25)];

/// Which of `selectors` are not wholly in the window, or are covered by something else: none,
/// when everything they name can be seen and clicked.
fn out_of_reach(session: &Session, selectors: &[&str]) -> Value {
    session
        .execute(
            "const root = document.documentElement;
             const problems = arguments[0].flatMap((selector) => {
               const element = document.querySelector(selector);
               if (!element) return [`${selector}: missing`];
               const r = element.getBoundingClientRect();
               if (r.width === 0 || r.height === 0) return [`${selector}: not shown`];
               if (r.left < 0 || r.top < 0 || r.right > root.clientWidth + 1 || r.bottom > root.clientHeight + 1) {
                 return [`${selector}: outside the window at ${JSON.stringify(r)}`];
               }
               const top = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
               return top && (element.contains(top) || top.contains(element)) ? [] : [`${selector}: covered by ${top?.outerHTML.slice(0, 80)}`];
             });
             if (document.getElementById('app').scrollWidth > root.clientWidth + 1) problems.push('the window scrolls sideways');
             return problems;",
            json!([selectors]),
        )
        .unwrap()
}

/// At each of [`SMALL_WINDOWS`], the viewer's controls and page, then (the viewer closed) the
/// sidebar's and the chat's, can all be seen and clicked, and nothing scrolls sideways.
fn usable_when_small(session: &Session, desktop: &Desktop, shots: &Path) {
    let resize = |width: u32, height: u32, zoom: f64| {
        session.set_window_size(width, height).unwrap();
        invoke(session, "set_zoom", json!({ "zoom": zoom }));
        std::thread::sleep(Duration::from_millis(400));
    };
    let viewer = [
        "#viewer button.close-viewer",
        "#viewer button.next-page",
        "#viewer button.zoom-in",
        "#viewer input.page-number",
        "#viewer .viewer-find input",
        "#viewer .viewer-page",
    ];
    let window = [
        "#sidebar button.open-search",
        "#sidebar [role=tree] [role=treeitem]",
        "#sidebar button.toggle-queue",
        ".chat-bar select.backend",
        ".chat-bar select.strategy",
        "form.ask textarea",
        "form.ask button[type=submit]",
        ".scope-bar",
    ];
    for (width, height, zoom) in SMALL_WINDOWS {
        resize(width, height, zoom);
        if (width, zoom) == (1024, 1.0) {
            desktop.screenshot(&shots.join("small.png"));
        }
        assert_eq!(
            out_of_reach(session, &viewer),
            json!([]),
            "the viewer at {width}x{height}, {zoom}"
        );
    }
    // WebDriver's clicks land where the page would be at 100 %.
    resize(1280, 820, 1.0);
    click_on(session, "#viewer button.close-viewer");
    for (width, height, zoom) in SMALL_WINDOWS {
        resize(width, height, zoom);
        assert_eq!(
            out_of_reach(session, &window),
            json!([]),
            "the window at {width}x{height}, {zoom}"
        );
    }
    resize(1280, 820, 1.0);
}

/// Waits until the chips above the chat name `labels`.
fn scope_chips_are(session: &Session, labels: &[&str]) {
    session
        .wait_until(
            "the scope's chips",
            &format!(
                "return JSON.stringify([...document.querySelectorAll('.scope-bar .chip')].map((c) => c.textContent)) === {:?};",
                serde_json::to_string(labels).unwrap()
            ),
            SHORT,
        )
        .unwrap();
}

/// Chooses what to ask about in the tree: back to the whole library, then each folder's box.
fn choose_scope(session: &Session, folders: &[&str]) {
    if !session.find_all("button.whole-library").unwrap().is_empty() {
        click_on(session, "button.whole-library");
    }
    for folder in folders {
        click_on(
            session,
            &format!("li.folder[data-folder-path=\"{folder}\"] > .folder-row input.in-scope"),
        );
    }
    scope_chips_are(
        session,
        if folders.is_empty() {
            &["Whole library"]
        } else {
            folders
        },
    );
}

/// Chooses "Ask about this folder" in the folder's menu, opened from its ⋮ button.
fn ask_about_folder_from_its_menu(session: &Session, folder: &str) {
    let row = format!("li.folder[data-folder-path=\"{folder}\"] > .folder-row");
    click_on(session, &format!("{row} .folder-name"));
    click_on(session, &format!("{row} .row-menu"));
    let first = session
        .wait_for(".context-menu [role=menuitem]:first-child", SHORT)
        .unwrap();
    assert_eq!(session.text(&first).unwrap(), "Ask about this folder");
    session.click(&first).unwrap();
    scope_chips_are(session, &[folder]);
}

/// Asks over the folders labelled `folders` (all when empty), chosen in the tree; returns the
/// finished answer's text and the names of its source documents.
fn ask(session: &Session, question: &str, folders: &[&str]) -> (String, Vec<String>) {
    choose_scope(session, folders);
    ask_in_scope(session, question)
}

/// Asks over the scope the chips show.
fn ask_in_scope(session: &Session, question: &str) -> (String, Vec<String>) {
    let before = session.find_all(".message.answer").unwrap().len();
    let input = session.wait_for("form.ask textarea", SHORT).unwrap();
    session.type_text(&input, question).unwrap();
    click_on(session, "form.ask button[type=submit]");
    let answer = session
        .wait_until(
            "the answer",
            &format!(
                "const all = document.querySelectorAll('.message.answer');
                 const last = all[all.length - 1];
                 return all.length > {before} && !last.classList.contains('streaming') &&
                   {{ text: last.querySelector('.body') ? last.querySelector('.body').textContent : last.textContent,
                     failed: last.classList.contains('failed'),
                     sources: [...last.querySelectorAll('.source > span')].map((s) => s.textContent) }};"
            ),
            LONG,
        )
        .unwrap();
    assert_eq!(answer["failed"], false, "the answer failed: {answer}");
    let sources = answer["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect();
    (answer["text"].as_str().unwrap_or_default().to_string(), sources)
}

/// A question pointing at one document without naming it, over several, in a new chat with
/// none open: the likeliest are offered as chips; the one chosen opens in the viewer and is
/// asked.
fn asks_which_document(session: &Session) {
    click_on(session, "button.chats-button");
    click_on(session, "button.new-chat");
    // No document open: the viewer closed (in a small window its close button may lie under
    // the chat, so it is pressed from the page).
    let closed = session
        .execute(
            "const viewer = document.getElementById('viewer');
             if (!viewer.hidden) viewer.querySelector('button.close-viewer').click();
             return viewer.hidden;",
            json!([]),
        )
        .unwrap();
    assert_eq!(closed, json!(true));
    let input = session.wait_for("form.ask textarea", SHORT).unwrap();
    session
        .type_text(&input, "What is on the second page of this document?")
        .unwrap();
    click_on(session, "form.ask button[type=submit]");
    let asked = session
        .wait_until(
            "the documents to choose from",
            "const last = document.querySelector('.message.answer:last-child');
             return last && !last.classList.contains('streaming') &&
               { chips: last.querySelectorAll('.document-choices button').length, text: last.textContent };",
            LONG,
        )
        .unwrap();
    assert!(
        asked["chips"].as_u64().unwrap_or(0) > 0,
        "no documents offered: {asked}"
    );
    let chip = session
        .wait_for(".message.answer:last-child .document-choices button", SHORT)
        .unwrap();
    let chosen = session.text(&chip).unwrap();
    session.click(&chip).unwrap();
    let note = session
        .wait_until(
            "the answer asked of the document chosen",
            "const last = document.querySelector('.message.answer:last-child');
             const note = last && !last.classList.contains('streaming') && last.querySelector('.retrieval-note');
             return note && note.textContent;",
            LONG,
        )
        .unwrap();
    assert_eq!(
        note,
        json!(format!("Asked of {chosen}, the document open in the viewer"))
    );
    let open = session
        .execute("return !document.getElementById('viewer').hidden;", json!([]))
        .unwrap();
    assert_eq!(open, json!(true), "the document chosen is open in the viewer");
}

/// Clicks the last answer's first footnote and checks that the viewer shows the cited page
/// (the one its source button names) with the passage highlighted.
fn open_first_citation(session: &Session) {
    let footnotes = session
        .find_all(".message.answer:last-child .body button.footnote")
        .unwrap();
    let footnote = footnotes.first().expect("the answer has a footnote");
    let source = session
        .find_all(".message.answer:last-child .source-page")
        .unwrap()
        .into_iter()
        .next()
        .expect("the answer lists its sources");
    let label = session.text(&source).unwrap();
    let page = label.split("p. ").nth(1).unwrap().trim().to_string();
    session.click(footnote).unwrap();
    let shown = session
        .wait_until(
            "the cited page with the passage highlighted",
            "const v = document.querySelector('#viewer');
             const marks = v.querySelectorAll('.page .passage-highlight');
             return !v.hidden && marks.length > 0 && v.querySelector('.page').dataset.page;",
            SHORT,
        )
        .unwrap();
    assert_eq!(
        shown,
        json!(page),
        "the viewer shows page {shown}, the footnote cites page {page}"
    );
}

/// Hovers the last answer's first footnote: its preview shows the quoted passage with the
/// document and page it is from.
fn preview_first_footnote(session: &Session, file_name: &str) {
    let shown = session
        .execute(
            "const button = document.querySelector('.message.answer:last-child .body button.footnote');
             button.dispatchEvent(new MouseEvent('mouseenter'));
             const preview = document.querySelector('.footnote-preview');
             const shown = { hidden: preview.hidden,
                             where: preview.querySelector('.preview-where').textContent,
                             quote: preview.querySelector('blockquote').textContent };
             button.dispatchEvent(new MouseEvent('mouseleave'));
             return shown;",
            json!([]),
        )
        .unwrap();
    assert_eq!(shown["hidden"], json!(false), "{shown}");
    assert!(
        shown["where"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{file_name}, page ")),
        "{shown}"
    );
    assert!(shown["quote"].as_str().unwrap().len() > 20, "{shown}");
}

/// Presses Ctrl+K; returns instant search's box, once it is open.
fn open_quick_search(session: &Session) -> webdriver::Element {
    session
        .execute(
            "window.dispatchEvent(new KeyboardEvent('keydown', { key: 'k', ctrlKey: true, bubbles: true }));",
            json!([]),
        )
        .unwrap();
    session.wait_for("dialog.quick-search[open] input", SHORT).unwrap()
}

/// Ctrl+K and words typed: the first passage found is in `file_name`, its words marked. Returns
/// the search box and the page found.
fn search(session: &Session, words: &str, file_name: &str) -> (webdriver::Element, Value) {
    let id = document_id(session, file_name);
    let input = open_quick_search(session);
    session.type_text(&input, words).unwrap();
    let page = session
        .wait_until(
            "the passage found",
            &format!(
                "const first = document.querySelector('dialog.quick-search li.hit');
                 return first && first.dataset.document === '{id}' && first.querySelector('mark') && first.dataset.page;"
            ),
            SHORT,
        )
        .unwrap();
    (input, page)
}

/// Enter in the search box: the passage chosen opens in the viewer at `page`, highlighted.
fn open_found(session: &Session, input: &webdriver::Element, page: &Value) {
    // WebDriver's Enter key.
    session.type_text(input, "\u{E007}").unwrap();
    let shown = session
        .wait_until(
            "the page found, highlighted",
            "const v = document.querySelector('#viewer');
             return !v.hidden && !document.querySelector('dialog.quick-search').open
                 && v.querySelectorAll('.page .passage-highlight').length > 0 && v.querySelector('.page').dataset.page;",
            SHORT,
        )
        .unwrap();
    assert_eq!(&shown, page, "the viewer shows page {shown}, search found page {page}");
}

/// The viewer's page buttons and zoom, from the cited page `page` (the last of its document):
/// back a page shows it without the highlight, forward again shows the highlight; zoom in widens
/// the page by a step.
fn navigate_viewer(session: &Session, page: &Value) {
    let cited: u32 = page.as_str().unwrap().parse().unwrap();
    let state = "const v = document.querySelector('#viewer');
                 return { page: v.querySelector('.page').dataset.page,
                          marks: v.querySelectorAll('.page .passage-highlight').length,
                          width: v.querySelector('.page canvas').width };";
    let page_shown = |want: u32, what: &str| {
        session
            .wait_until(
                what,
                &format!("const v = document.querySelector('#viewer'); return v.querySelector('.page').dataset.page === '{want}' && v.querySelector('.page canvas') !== null;"),
                SHORT,
            )
            .unwrap();
        session.execute(state, json!([])).unwrap()
    };
    let before = session.execute(state, json!([])).unwrap();
    click_on(session, "#viewer button.previous-page");
    let back = page_shown(cited - 1, "the page before the cited one");
    assert_eq!(back["marks"], json!(0), "{back}");
    click_on(session, "#viewer button.next-page");
    let again = page_shown(cited, "the cited page again");
    session
        .wait_until(
            "the highlight again",
            "return document.querySelectorAll('#viewer .page .passage-highlight').length > 0;",
            SHORT,
        )
        .unwrap();
    click_on(session, "#viewer button.zoom-in");
    let zoomed = session
        .wait_until(
            "the page a zoom step wider",
            &format!(
                "const c = document.querySelector('#viewer .page canvas'); return c && c.width > {} && c.width;",
                again["width"]
            ),
            SHORT,
        )
        .unwrap();
    let ratio = zoomed.as_f64().unwrap() / before["width"].as_f64().unwrap();
    assert!((1.2..1.3).contains(&ratio), "zoom in made the page {ratio}x wider");
    click_on(session, "#viewer button.zoom-fit");

    // Ctrl+F's box finds the words on a page and marks them.
    let find = session.wait_for("#viewer .viewer-find input", SHORT).unwrap();
    session.type_text(&find, "lorem ipsum\u{E007}").unwrap();
    let found = session
        .wait_until(
            "the words found",
            "const v = document.querySelector('#viewer');
             const status = v.querySelector('.find-status').textContent;
             return v.querySelectorAll('.textLayer .found').length > 0 && status.startsWith('Page ') && status;",
            SHORT,
        )
        .unwrap();
    assert!(found.as_str().unwrap().contains(" of "), "{found}");

    // The pages as thumbnails, drawn as they come into view: the one shown is marked, and a
    // click on another shows it (the strip is left open).
    click_on(session, "#viewer button.toggle-thumbnails");
    let strip = session
        .wait_until(
            "the thumbnails drawn",
            "const items = [...document.querySelectorAll('#viewer .thumbnails button.thumbnail')];
             const drawn = items.filter((b) => b.querySelector('canvas').width < 300);
             return drawn.length === items.length && items.length > 1
               && { pages: items.length, current: document.querySelector('#viewer .thumbnail[aria-current]').dataset.page };",
            SHORT,
        )
        .unwrap();
    let shown = session.execute(state, json!([])).unwrap();
    assert_eq!(strip["current"], shown["page"], "{strip}");
    click_on(session, "#viewer .thumbnails button.thumbnail:first-child");
    page_shown(1, "the first page, from its thumbnail");
}

/// "Back to the answer" in the viewer gives the focus back to the footnote that opened it.
fn back_to_the_answer(session: &Session) {
    click_on(session, "#viewer button.back-to-answer");
    session
        .wait_until(
            "the focus back on the footnote",
            "return document.activeElement && document.activeElement.matches('.message.answer button.footnote');",
            SHORT,
        )
        .unwrap();
}

fn no_injected_html(session: &Session) {
    let found = session
        .execute(
            "return { pwned: window.__pwned ?? null,
                      elements: document.querySelectorAll('.messages script, .messages img, #sidebar img').length };",
            json!([]),
        )
        .unwrap();
    assert_eq!(
        found,
        json!({"pwned": null, "elements": 0}),
        "HTML from a PDF or a model ran"
    );
}

/// Switches the server for other programs on in the settings: a program reaches the library
/// with the token the settings show, the request is in the log, and switched off, the address
/// answers no more.
fn serve_other_programs(session: &Session) {
    click_on(session, "dialog.settings input.serve");
    let said = session
        .wait_until(
            "the server to start",
            "const p = document.querySelector('.server-url');
             return p && /Serving at/.test(p.textContent) && p.textContent;",
            SHORT,
        )
        .unwrap();
    let said = said.as_str().unwrap();
    let url = said
        .split_whitespace()
        .find(|w| w.starts_with("http://") && w.ends_with("/v1"))
        .unwrap_or_else(|| panic!("no address in {said:?}"));
    let token = session
        .execute("return document.querySelector('input.api-token').value;", json!([]))
        .unwrap();
    let http = reqwest::blocking::Client::new();
    let models: Value = http
        .get(format!("{url}/models"))
        .bearer_auth(token.as_str().unwrap())
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(models.to_string().contains("lectern/Papers"), "{models}");
    let refused = http
        .get(format!("{url}/models"))
        .bearer_auth("lectern-wrong")
        .send()
        .unwrap();
    assert_eq!(refused.status(), reqwest::StatusCode::UNAUTHORIZED);
    let state = invoke(session, "server_state", json!({}));
    assert!(
        state["requests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["path"] == "/v1/models" && r["status"] == 200),
        "{state}"
    );
    click_on(session, "dialog.settings input.serve");
    session
        .wait_until(
            "the server to stop",
            "const p = document.querySelector('.server-url');
             return p && /Not serving/.test(p.textContent);",
            SHORT,
        )
        .unwrap();
    // A new connection is refused once the server has let go of its port.
    let stopping = Instant::now();
    while reqwest::blocking::Client::new()
        .get(format!("{url}/models"))
        .send()
        .is_ok()
    {
        assert!(stopping.elapsed() < SHORT, "the server still answers at {url}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_app_from_import_to_cited_answers_and_back_after_a_restart() {
    let desktop = Desktop::start();
    let shots = screenshots();
    let (session, cold) = start(&desktop);
    println!("cold start to the folder tree: {} ms", cold.as_millis());

    create_folder(&session, "Papers");
    create_folder(&session, "Elsewhere");
    let probe = desktop.home.path().join("lighthouse-probe.pdf");
    fixtures::write_html_pdf(&probe);
    let report = invoke(
        &session,
        "import_files",
        json!({ "paths": [probe], "folder": "Papers" }),
    );
    assert_eq!(report["failed"], json!([]), "{report}");
    documents_ready(&session, 1);

    // Indexing paused: what is added waits in the queue until it is resumed.
    click_on(&session, "button.pause-indexing");
    panel_says(&session, "^Paused");
    let paths: Vec<PathBuf> = [WRITER_PDF, LOREM_PDF, COLUMNS_PDF]
        .iter()
        .map(|f| corpus_pdf(f))
        .collect();
    let report = invoke(&session, "import_files", json!({ "paths": paths, "folder": "Papers" }));
    assert_eq!(report["failed"], json!([]), "{report}");
    panel_says(&session, "^Paused · [34] documents left");
    std::thread::sleep(Duration::from_secs(1));
    let waiting = session
        .execute(
            "return document.querySelectorAll('li.document.status-queued').length;",
            json!([]),
        )
        .unwrap();
    assert_eq!(waiting, json!(3), "nothing is read while indexing is paused");
    click_on(&session, "button.toggle-queue");
    session.wait_for(".indexing-panel li.queue-entry", SHORT).unwrap();
    desktop.screenshot(&shots.join("import.png"));
    click_on(&session, "button.pause-indexing");
    documents_ready(&session, 4);
    panel_says(&session, "^All 4 documents indexed$");

    // Passages only: the answer quotes the passage, its footnote opens the cited page.
    choose(&session, "select.backend", "extractive");
    let (text, sources) = ask(&session, LOREM_QUESTION, &[]);
    assert!(text.contains("Andrew Jackson"), "{text}");
    assert!(sources.iter().any(|s| s == LOREM_PDF), "{sources:?}");
    open_first_citation(&session);
    back_to_the_answer(&session);
    every_passage_retrieved(&session);
    let exported = export_last_answer(&session, &desktop.home.path().join("answer.md"));
    assert!(exported.starts_with(&format!("# {LOREM_QUESTION}\n")), "{exported}");
    assert!(
        exported.contains("\n[^1]: ") && exported.contains(&format!("{LOREM_PDF}, page ")),
        "{exported}"
    );
    preview_first_footnote(&session, LOREM_PDF);
    desktop.screenshot(&shots.join("answer.png"));
    accessible(
        &session,
        "the chat with an answer, its footnote's preview and the viewer",
    );
    let (input, page) = search(&session, "waived copyright", LOREM_PDF);
    desktop.screenshot(&shots.join("search.png"));
    accessible(&session, "instant search with passages found");
    open_found(&session, &input, &page);
    navigate_viewer(&session, &page);
    desktop.screenshot(&shots.join("viewer.png"));
    click_on(&session, "#viewer button.toggle-thumbnails");
    usable_when_small(&session, &desktop, &shots);

    // The PDF's markup is quoted as text.
    let (text, _) = ask(
        &session,
        "What markup did the lighthouse inspection find in the logbook?",
        &["Papers"],
    );
    assert!(
        text.contains("<img src=x onerror="),
        "the PDF's markup is shown as text: {text}"
    );
    no_injected_html(&session);
    asks_which_document(&session);

    // The built-in model, on one thread.
    choose(&session, "select.backend", "builtin");
    let (text, _) = ask(&session, LOREM_QUESTION, &["Papers"]);
    assert!(!text.trim().is_empty(), "the built-in model wrote nothing");
    desktop.screenshot(&shots.join("builtin.png"));
    // Under the smart strategy, thanks are answered without a search, and the answer says so.
    choose(&session, "select.strategy", "smart");
    ask_in_scope(&session, "Thanks a lot!");
    let note = session
        .wait_for(".message.answer:last-child .retrieval-note", SHORT)
        .unwrap();
    assert!(session.text(&note).unwrap().contains("without searching"));
    choose(&session, "select.strategy", "");

    // A server's answer holding HTML, set up in Settings with its connection tested.
    let url = fixtures::serve_ollama();
    click_on(&session, "button.open-settings");
    // The models on this machine are listed with what they need; the built-in one is installed.
    let installed = session
        .wait_until(
            "the models in the settings",
            "const m = document.querySelector('dialog.settings li.model[data-model=\"smollm2-135m\"]');
             return m && m.querySelector('.model-state').textContent;",
            SHORT,
        )
        .unwrap();
    assert!(
        ["In use", "Installed"].contains(&installed.as_str().unwrap()),
        "{installed}"
    );
    choose(&session, "dialog.settings select[name=backend]", "ollama");
    let model = session.wait_for("dialog.settings input[name=model]", SHORT).unwrap();
    session.type_text(&model, "probe").unwrap();
    let url_input = session.wait_for("dialog.settings input[name=url]", SHORT).unwrap();
    session.type_text(&url_input, &url).unwrap();
    click_on(&session, "button.test-connection");
    let result = session
        .wait_until(
            "the connection test",
            "const out = document.querySelector('output.connection-result');
             return out && /connected/i.test(out.textContent) && out.textContent;",
            SHORT,
        )
        .unwrap();
    assert!(result.as_str().unwrap().contains("probe"), "{result}");
    serve_other_programs(&session);
    desktop.screenshot(&shots.join("settings.png"));
    accessible(&session, "the settings");
    click_on(&session, "dialog.settings button.save");
    let (text, _) = ask(&session, "What must the lighthouse keeper do?", &["Papers"]);
    assert!(
        text.contains("<script>window.__pwned='model'</script>"),
        "the model's markup is shown as text: {text}"
    );
    no_injected_html(&session);

    // Move the lorem ipsum document by dragging it onto another folder: the next answer over
    // "Papers" no longer finds it there, and one over "Elsewhere" does.
    choose(&session, "select.backend", "extractive");
    let lorem = document_id(&session, LOREM_PDF);
    let moved = session
        .execute(
            "const [id, target] = arguments;
             const item = document.querySelector(`li.document[data-document-id=\"${id}\"]`);
             const row = document.querySelector(`li.folder[data-folder-path=\"${target}\"] > .folder-row`);
             const data = new DataTransfer();
             item.dispatchEvent(new DragEvent('dragstart', { bubbles: true, dataTransfer: data }));
             row.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: data }));
             row.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: data }));
             return true;",
            json!([lorem, "Elsewhere"]),
        )
        .unwrap();
    assert_eq!(moved, json!(true));
    session
        .wait_for(
            &format!("li.document[data-document-id=\"{lorem}\"][data-folder-path=\"Elsewhere\"]"),
            SHORT,
        )
        .unwrap();
    document_log_says(&session, &lorem, "Moved to Elsewhere");
    let (_, sources) = ask(&session, LOREM_QUESTION, &["Papers"]);
    assert!(
        !sources.iter().any(|s| s == LOREM_PDF),
        "a moved document answered for its old folder: {sources:?}"
    );
    ask_about_folder_from_its_menu(&session, "Elsewhere");
    let (text, sources) = ask_in_scope(&session, LOREM_QUESTION);
    assert_eq!(
        sources,
        [LOREM_PDF],
        "the moved document answers alone in its new folder"
    );
    assert!(text.contains("Andrew Jackson"), "{text}");

    // Restart: the chat comes back, and its citations still open the cited page.
    let chats = invoke(&session, "list_chats", json!({}));
    let chat = chats[0]["id"].as_str().unwrap().to_string();
    let answers_before = session.find_all(".message.answer").unwrap().len();
    session.close().unwrap();
    let (session, warm) = start(&desktop);
    println!("second start to the folder tree: {} ms", warm.as_millis());
    open_chat(&session, &chat);
    session
        .wait_for(".message.answer .body button.footnote", SHORT)
        .unwrap();
    assert_eq!(session.find_all(".message.answer").unwrap().len(), answers_before);
    open_first_citation(&session);
    desktop.screenshot(&shots.join("reopened.png"));
    session.close().unwrap();

    // The system's dark theme: the same library in a session whose GTK theme is dark.
    let dark = Desktop::start_with(
        Some(&desktop.home.path().join("library")),
        &[("GTK_THEME", "Adwaita:dark")],
    );
    let (session, _) = start(&dark);
    open_chat(&session, &chat);
    session
        .wait_for(".message.answer .body button.footnote", SHORT)
        .unwrap();
    let scheme = session
        .execute(
            "return { dark: matchMedia('(prefers-color-scheme: dark)').matches,
                      background: getComputedStyle(document.documentElement).backgroundColor };",
            json!([]),
        )
        .unwrap();
    assert_eq!(
        scheme,
        json!({"dark": true, "background": "rgb(22, 24, 31)"}),
        "the window follows the dark theme"
    );
    open_first_citation(&session);
    dark.screenshot(&shots.join("dark.png"));
    accessible(&session, "the dark theme, with the viewer");
    session.close().unwrap();
}

/// Started from a menu, the app has no terminal: a library it cannot open (here its catalog is not
/// a database) is said in a dialog that stays until it is closed, not only on stderr as the app
/// quits at once.
#[test]
fn a_library_that_cannot_be_opened_is_said_in_a_dialog() {
    let display = Display::start();
    let home = tempfile::tempdir().unwrap();
    let library = home.path().join("library");
    std::fs::create_dir_all(&library).unwrap();
    std::fs::write(library.join("library.sqlite"), vec![b'x'; 8192]).unwrap();
    let mut app = std::process::Command::new(app())
        .env("DISPLAY", display.name())
        .env("LECTERN_HOME", &library)
        .env("LECTERN_MODELS", models_dir())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The dialog is up once something is drawn on the empty display; the app waits on it.
    let started = Instant::now();
    let drawn = loop {
        let (_, _, rgb) = screenshot::pixels(&display.name());
        if rgb.chunks(3).any(|pixel| pixel != &rgb[..3]) {
            break true;
        }
        assert!(app.try_wait().unwrap().is_none(), "the app quit without a dialog");
        if started.elapsed() > SHORT {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    screenshot::save(&display.name(), &screenshots().join("cannot-open.png"));
    assert!(drawn, "nothing was drawn");
    assert!(
        app.try_wait().unwrap().is_none(),
        "the app quit without waiting for the dialog"
    );
    app.kill().unwrap();
    let output = app.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("cannot be opened") && said.contains("restore-catalog"),
        "{said}"
    );
}
