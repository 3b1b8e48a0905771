//! A small W3C WebDriver client: what the end-to-end test needs of a session (find, click, type,
//! run script, answer prompts), spoken over HTTP to tauri-driver.

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serde_json::{json, Value};

/// The key W3C WebDriver names an element reference with.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub type Result<T> = std::result::Result<T, String>;

pub struct Session {
    http: Client,
    url: String,
}

/// An element of the page.
#[derive(Debug, Clone)]
pub struct Element(String);

impl Session {
    /// Starts the app at `application` through the driver listening on `port`.
    pub fn start(port: u16, application: &Path) -> Result<Session> {
        let http = Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .map_err(|e| e.to_string())?;
        let base = format!("http://127.0.0.1:{port}");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": application},
        }}});
        let reply = send(&http, reqwest::Method::POST, &format!("{base}/session"), Some(caps))?;
        let id = reply["sessionId"].as_str().ok_or(format!("no session id in {reply}"))?;
        Ok(Session {
            http,
            url: format!("{base}/session/{id}"),
        })
    }

    fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Result<Value> {
        send(&self.http, method, &format!("{}{path}", self.url), body)
    }

    fn post(&self, path: &str, body: Value) -> Result<Value> {
        self.call(reqwest::Method::POST, path, Some(body))
    }

    /// Ends the session, which closes the app.
    pub fn close(self) -> Result<()> {
        self.call(reqwest::Method::DELETE, "", None).map(|_| ())
    }

    /// The elements matching the CSS `selector` now.
    pub fn find_all(&self, selector: &str) -> Result<Vec<Element>> {
        let found = self.post("/elements", json!({"using": "css selector", "value": selector}))?;
        Ok(found
            .as_array()
            .map(|all| {
                all.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(|id| Element(id.to_string())))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Waits up to `timeout` for an element matching `selector`.
    pub fn wait_for(&self, selector: &str, timeout: Duration) -> Result<Element> {
        let started = Instant::now();
        loop {
            if let Some(e) = self.find_all(selector)?.into_iter().next() {
                return Ok(e);
            }
            if started.elapsed() > timeout {
                return Err(format!("nothing matched {selector:?} within {timeout:?}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits up to `timeout` for `script` (a function body) to return something truthy, and
    /// returns it.
    pub fn wait_until(&self, what: &str, script: &str, timeout: Duration) -> Result<Value> {
        let started = Instant::now();
        loop {
            let value = self.execute(script, json!([]))?;
            if !(value.is_null() || value == json!(false) || value == json!("")) {
                return Ok(value);
            }
            if started.elapsed() > timeout {
                return Err(format!("{what}: not within {timeout:?}"));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub fn click(&self, element: &Element) -> Result<()> {
        self.post(&format!("/element/{}/click", element.0), json!({}))
            .map(|_| ())
    }

    pub fn type_text(&self, element: &Element, text: &str) -> Result<()> {
        self.post(&format!("/element/{}/value", element.0), json!({ "text": text }))
            .map(|_| ())
    }

    pub fn text(&self, element: &Element) -> Result<String> {
        let value = self.call(reqwest::Method::GET, &format!("/element/{}/text", element.0), None)?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// Runs `script` (a function body) with `args` and returns its result.
    pub fn execute(&self, script: &str, args: Value) -> Result<Value> {
        self.post("/execute/sync", json!({ "script": script, "args": args }))
    }

    /// Runs `script` (a function body whose last argument is the callback to call with the result).
    pub fn execute_async(&self, script: &str, args: Value) -> Result<Value> {
        self.post("/execute/async", json!({ "script": script, "args": args }))
    }

    /// Resizes the window to `width` × `height` (outer size, in CSS pixels).
    pub fn set_window_size(&self, width: u32, height: u32) -> Result<()> {
        self.post("/window/rect", json!({ "width": width, "height": height }))
            .map(|_| ())
    }

    /// Types `text` into the open prompt and accepts it.
    pub fn answer_prompt(&self, text: &str) -> Result<()> {
        let started = Instant::now();
        loop {
            match self.post("/alert/text", json!({ "text": text })) {
                Ok(_) => break,
                Err(e) if e.contains("no such alert") && started.elapsed() < Duration::from_secs(5) => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => return Err(e),
            }
        }
        self.post("/alert/accept", json!({})).map(|_| ())
    }
}

fn send(http: &Client, method: reqwest::Method, url: &str, body: Option<Value>) -> Result<Value> {
    let request = http.request(method, url);
    let request = match body {
        Some(body) => request.json(&body),
        None => request,
    };
    let started = Instant::now();
    let response = request.send().map_err(|e| format!("{url}: {}", with_causes(&e)))?;
    if started.elapsed() > Duration::from_secs(2) {
        eprintln!("webdriver: {url} took {:?}", started.elapsed());
    }
    let status = response.status();
    let reply: Value = response.json().map_err(|e| format!("{url}: {e}"))?;
    if !status.is_success() {
        return Err(format!(
            "{url}: {} {}",
            reply["value"]["error"].as_str().unwrap_or("error"),
            reply["value"]["message"].as_str().unwrap_or_default()
        ));
    }
    Ok(reply["value"].clone())
}

/// An error and the chain of errors under it, which reqwest keeps out of its own message.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}
