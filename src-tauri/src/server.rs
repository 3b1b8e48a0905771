//! The library served to other programs from inside the app: the same server as `lectern
//! serve`, switched on and off in the settings, at `LECTERN_SERVE_ADDRESS` or `lectern serve`'s
//! default address (this machine only).

use std::net::SocketAddr;

use lectern::{Error, Library};
use tokio::sync::oneshot;

/// The server while it runs.
pub struct Running {
    pub address: SocketAddr,
    stop: oneshot::Sender<()>,
}

impl Running {
    /// Stops the server; requests under way are finished.
    pub fn stop(self) {
        let _ = self.stop.send(());
    }
}

/// Where the app serves the library.
fn address() -> Result<SocketAddr, Error> {
    let given = std::env::var("LECTERN_SERVE_ADDRESS").unwrap_or_else(|_| lectern_serve::DEFAULT_ADDRESS.into());
    given.parse().map_err(|e| Error::Config {
        name: "LECTERN_SERVE_ADDRESS".into(),
        reason: format!("{given:?} is not an address and port such as 127.0.0.1:8765 ({e})"),
    })
}

/// Starts serving `library`, on the app's runtime.
pub async fn start(library: Library) -> Result<Running, Error> {
    let listener = lectern_serve::bind(address()?).await?;
    let address = lectern_serve::local_address(&listener)?;
    let (stop, stopped) = oneshot::channel::<()>();
    tauri::async_runtime::spawn(async move {
        let stopped = async {
            let _ = stopped.await;
        };
        if let Err(e) = lectern_serve::serve_until(library, listener, stopped).await {
            eprintln!("lectern: the server stopped: {e}");
        }
    });
    Ok(Running { address, stop })
}
