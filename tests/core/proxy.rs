//! The network between a library and the tests' PostgreSQL server, played by a loopback proxy: it
//! can speak TLS to the library (after PostgreSQL's SSLRequest, as a server configured for TLS
//! does, with a certificate of a test authority) while the server it forwards to has none, and it
//! can go down for a while, ending every connection and refusing new ones, as a server that
//! restarts does. Only the tests' own connections pass through it: other tests sharing the server
//! are not touched.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// PostgreSQL's SSLRequest: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// A test authority and a server certificate it signed for `localhost` (not for 127.0.0.1).
pub struct Authority {
    /// The authority's certificate, PEM, in a file of its own.
    pub pem_file: PathBuf,
    server: Arc<rustls::ServerConfig>,
    _dir: tempfile::TempDir,
}

impl Authority {
    pub fn new() -> Authority {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
        let ca_key = KeyPair::generate().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "Lectern tests' authority");
        let ca = ca.self_signed(&ca_key).unwrap();
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .signed_by(&key, &ca, &ca_key)
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let pem_file = dir.path().join("authority.pem");
        std::fs::write(&pem_file, ca.pem()).unwrap();
        let server = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(leaf.der().to_vec())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .unwrap();
        Authority {
            pem_file,
            server: Arc::new(server),
            _dir: dir,
        }
    }
}

/// A proxy in front of the server of a database URL.
pub struct Proxy {
    port: u16,
    down: watch::Sender<bool>,
    handshakes: Arc<AtomicUsize>,
    /// Runs the proxy's tasks; they end with it.
    _runtime: tokio::runtime::Runtime,
}

impl Proxy {
    /// Starts a proxy to the server of `database_url`, speaking TLS with `authority`'s server
    /// certificate if there is one.
    pub fn start(database_url: &str, authority: Option<&Authority>) -> Proxy {
        let config: tokio_postgres::Config = database_url.parse().unwrap();
        let host = match &config.get_hosts()[0] {
            tokio_postgres::config::Host::Tcp(host) => host.clone(),
            other => panic!("the tests' server is not on TCP: {other:?}"),
        };
        let upstream: SocketAddr = format!("{host}:{}", config.get_ports()[0]).parse().unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (down, _) = watch::channel(false);
        let handshakes = Arc::new(AtomicUsize::new(0));
        let tls = authority.map(|a| tokio_rustls::TlsAcceptor::from(a.server.clone()));
        let (down_rx, counted) = (down.subscribe(), handshakes.clone());
        runtime.spawn(async move {
            loop {
                let Ok((inbound, _)) = listener.accept().await else {
                    continue;
                };
                // Down: the connection is ended as soon as it is made.
                if *down_rx.borrow() {
                    drop(inbound);
                    continue;
                }
                let (tls, counted, mut ended) = (tls.clone(), counted.clone(), down_rx.clone());
                tokio::spawn(async move {
                    tokio::select! {
                        _ = forward(inbound, upstream, tls, counted) => {}
                        _ = ended.wait_for(|down| *down) => {}
                    }
                });
            }
        });
        Proxy {
            port,
            down,
            handshakes,
            _runtime: runtime,
        }
    }

    /// `database_url` through this proxy, reached as `host`, with `query` added.
    pub fn url(&self, database_url: &str, host: &str, query: &str) -> String {
        let (_, database) = database_url.rsplit_once('/').unwrap();
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        format!("postgres://postgres@{host}:{}/{database}{query}", self.port)
    }

    /// Ends every connection and refuses new ones until [`Proxy::up`], as a server that
    /// restarts does.
    pub fn down(&self) {
        self.down.send_replace(true);
    }

    /// Takes connections again.
    pub fn up(&self) {
        self.down.send_replace(false);
    }

    /// TLS handshakes completed.
    pub fn handshakes(&self) -> usize {
        self.handshakes.load(Ordering::SeqCst)
    }
}

/// Forwards one connection to `upstream`, ending TLS first if `tls` is given.
async fn forward(
    mut inbound: TcpStream,
    upstream: SocketAddr,
    tls: Option<tokio_rustls::TlsAcceptor>,
    handshakes: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut server = TcpStream::connect(upstream).await?;
    match tls {
        None => {
            tokio::io::copy_bidirectional(&mut inbound, &mut server).await?;
        }
        Some(acceptor) => {
            let mut request = [0u8; 8];
            inbound.read_exact(&mut request).await?;
            if request != SSL_REQUEST {
                return Ok(());
            }
            inbound.write_all(b"S").await?;
            let mut inbound = acceptor.accept(inbound).await?;
            handshakes.fetch_add(1, Ordering::SeqCst);
            tokio::io::copy_bidirectional(&mut inbound, &mut server).await?;
        }
    }
    Ok(())
}
