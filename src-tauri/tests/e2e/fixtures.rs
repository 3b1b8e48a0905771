//! Hostile inputs for the security checks: a PDF whose text is HTML, and a loopback server
//! speaking Ollama's streamed `/api/chat` whose answer is HTML; and the reading of a request's
//! head that the tests' loopback servers share.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;

/// The words of the probe PDF's text, HTML that would run script if it were inserted as HTML.
pub const PDF_HTML: &str = r#"<img src=x onerror="window.__pwned='pdf'">"#;

/// Writes a one-page PDF whose text holds [`PDF_HTML`].
pub fn write_html_pdf(path: &Path) {
    let lines = [
        "Lectern security probe notice.",
        "The quarterly lighthouse inspection found this markup in the logbook:",
        PDF_HTML,
        "The lighthouse keeper must report the markup to the harbour office.",
    ];
    std::fs::write(path, lectern::pdf::text_pdf(&lines)).unwrap();
}

/// The model's answer: a script element, an image with a handler, and a citation of passage 1.
pub const MODEL_HTML: &str = r#"<script>window.__pwned='model'</script> <img src=x onerror="window.__pwned='model-img'"> The keeper reports it [1]."#;

/// Reads an HTTP request's line and headers from `reader`: the request line, and each header's
/// name (lowercased) with its value.
pub fn request_head(reader: &mut impl BufRead) -> (String, Vec<(String, String)>) {
    let mut request = String::new();
    let _ = reader.read_line(&mut request);
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    (request, headers)
}

/// Serves Ollama's `/api/chat` on a loopback port, streaming [`MODEL_HTML`] word by word as
/// NDJSON to every request, in the background; returns the base URL.
pub fn serve_ollama() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (_, headers) = request_head(&mut reader);
            let length = headers
                .iter()
                .find(|(name, _)| name == "content-length")
                .and_then(|(_, value)| value.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let mut reply = String::new();
            for word in MODEL_HTML.split_inclusive(' ') {
                let piece = serde_json::json!({"model": "probe", "message": {"role": "assistant", "content": word}, "done": false});
                reply.push_str(&format!("{piece}\n"));
            }
            reply.push_str(&format!(
                "{}\n",
                serde_json::json!({"model": "probe", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"})
            ));
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    url
}
