//! TLS to a library's database. The URL's `sslmode` says whether to use it, as libpq reads it
//! (`disable`, `prefer`, the default, `require`, `verify-ca`, `verify-full`), with one difference:
//! whenever a connection is encrypted the server's certificate is verified, its chain and its
//! name, against the system's roots or the authority named by `sslrootcert=FILE` in the URL
//! (`sslrootcert=system`: the system's). A connection that cannot be verified is refused, with
//! what to change, never made unverified.

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};

/// Where the authorities a server's certificate must chain to come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Roots {
    /// The system's (`/etc/ssl/certs`, or `SSL_CERT_FILE` / `SSL_CERT_DIR`).
    System,
    /// The PEM file `sslrootcert` names.
    File(PathBuf),
}

/// A URL as tokio-postgres reads it, and the roots it names: `sslrootcert` taken out (tokio-postgres
/// does not know it), `verify-ca` and `verify-full` read as `require` (every encrypted connection
/// is verified in full). URLs in the `key=value` form are left as they are.
pub fn split_url(url: &str) -> (String, Roots) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), Roots::System);
    };
    let mut roots = Roots::System;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (key, value) {
            ("sslrootcert", "system") => roots = Roots::System,
            ("sslrootcert", file) => {
                roots = Roots::File(PathBuf::from(
                    percent_encoding::percent_decode_str(file).decode_utf8_lossy().as_ref(),
                ))
            }
            ("sslmode", "verify-ca" | "verify-full") => kept.push("sslmode=require".to_string()),
            _ => kept.push(pair.to_string()),
        }
    }
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (url, roots)
}

/// The TLS client configuration for `roots`; the error says what could not be read.
pub fn client_config(roots: &Roots) -> Result<Arc<ClientConfig>, String> {
    let mut store = RootCertStore::empty();
    match roots {
        Roots::System => {
            // A system without a CA bundle has no roots: an encrypted connection is then refused
            // as unverifiable, with the hint to name the server's authority.
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
        }
        Roots::File(path) => {
            let certs = read_pem(path)?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(format!(
                    "the sslrootcert file {} holds no certificate that can be used",
                    path.display()
                ));
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS cannot be set up: {e}"))?
        .with_root_certificates(store)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

fn read_pem(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let cannot = |e: &dyn std::fmt::Display| {
        format!(
            "the sslrootcert file {} cannot be read ({e}); name a PEM file of the server's certificate authority",
            path.display()
        )
    };
    CertificateDer::pem_file_iter(path)
        .map_err(|e| cannot(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| cannot(&e))
}

/// What to do about `error` (or what caused it), when it is a certificate the server showed and
/// this machine does not trust, or that names another server.
pub fn distrust(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    let mut next = Some(error);
    while let Some(e) = next {
        if let Some(rustls::Error::InvalidCertificate(certificate)) = e.downcast_ref::<rustls::Error>() {
            return Some(match certificate {
                rustls::CertificateError::NotValidForName | rustls::CertificateError::NotValidForNameContext { .. } => {
                    "it was issued for another name than the URL's host: connect by the name it was issued for"
                }
                _ => {
                    "name the authority that signed it with sslrootcert=/path/to/ca.pem in the URL, or use \
                     sslmode=disable on a network you trust"
                }
            });
        }
        if let Some(hint) = e
            .downcast_ref::<io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| distrust(inner))
        {
            return Some(hint);
        }
        next = e.source();
    }
    None
}

/// Makes verified TLS connections for tokio-postgres.
#[derive(Clone)]
pub struct Tls(pub Arc<ClientConfig>);

impl<S> MakeTlsConnect<S> for Tls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type TlsConnect = Connect;
    type Error = io::Error;

    /// A server reached by a Unix socket has no name to verify: a server there never offers TLS
    /// (`prefer` goes on in clear text on the machine's own socket), and one that did would be
    /// refused.
    fn make_tls_connect(&mut self, domain: &str) -> io::Result<Connect> {
        let name = match domain {
            "" => None,
            _ => Some(
                ServerName::try_from(domain.to_string())
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{domain}: {e}")))?,
            ),
        };
        Ok(Connect {
            connector: tokio_rustls::TlsConnector::from(self.0.clone()),
            name,
        })
    }
}

/// One connection's handshake, to the server `name` (none over a Unix socket).
pub struct Connect {
    connector: tokio_rustls::TlsConnector,
    name: Option<ServerName<'static>>,
}

impl<S> TlsConnect<S> for Connect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Stream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let name = self.name.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "TLS over a Unix socket has no server name to verify",
                )
            })?;
            Ok(Stream(self.connector.connect(name, stream).await?))
        })
    }
}

/// An encrypted connection.
pub struct Stream<S>(tokio_rustls::client::TlsStream<S>);

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for Stream<S> {
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Stream<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Stream<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_loses_what_tokio_postgres_does_not_read_and_keeps_the_rest() {
        assert_eq!(
            split_url("postgres://u@h:5/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fmy%20ca.pem&application_name=x"),
            (
                "postgres://u@h:5/db?sslmode=require&application_name=x".to_string(),
                Roots::File(PathBuf::from("/tmp/my ca.pem"))
            )
        );
        assert_eq!(
            split_url("postgres://u@h/db?sslrootcert=system"),
            ("postgres://u@h/db".to_string(), Roots::System)
        );
        assert_eq!(
            split_url("host=h user=u sslmode=disable"),
            ("host=h user=u sslmode=disable".to_string(), Roots::System)
        );
    }

    #[test]
    fn a_root_file_that_holds_no_certificate_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate").unwrap();
        let err = client_config(&Roots::File(path.clone())).unwrap_err();
        assert!(err.contains(&path.display().to_string()), "{err}");
        let err = client_config(&Roots::File(dir.path().join("missing.pem"))).unwrap_err();
        assert!(err.contains("cannot be read"), "{err}");
    }
}
