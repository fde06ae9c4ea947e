//! HTTPS through the clients metasift builds: reqwest is built with
//! `rustls-no-provider`, so every client must come from
//! `metasift::search::client_builder()`, which installs ring as rustls's
//! crypto provider first (a client built without it panics at its first TLS
//! setup). A real TLS server on loopback (rustls, in a thread, with a CA and
//! a certificate for 127.0.0.1 made by the `openssl` command for this run):
//! a client from `client_builder()` that trusts the CA fetches a page from
//! it; the engines' client (`http_client`, the system's roots only) refuses
//! its certificate with an error, not a panic.
//!
//! Needs the `openssl` command (to make the certificates); without it the
//! tests skip loudly, unless `METASIFT_REQUIRE_SERVICES=1`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// A CA and a server certificate for `127.0.0.1` signed by it, as PEM files
/// in a fresh folder; `None` (after a loud message) when `openssl` is missing.
fn certificates(test: &str) -> Option<PathBuf> {
    if Command::new("openssl").arg("version").output().is_err() {
        if std::env::var("METASIFT_REQUIRE_SERVICES").is_ok_and(|v| v == "1") {
            panic!("{test}: the openssl command is required (METASIFT_REQUIRE_SERVICES=1)");
        }
        eprintln!("\n*** SKIPPED {test}: the openssl command is not installed ***\n");
        return None;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tls-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("leaf.ext"),
        "basicConstraints = critical, CA:FALSE\n\
         keyUsage = critical, digitalSignature\n\
         extendedKeyUsage = serverAuth\n\
         subjectAltName = IP:127.0.0.1\n",
    )
    .unwrap();
    let steps: [&[&str]; 3] = [
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=metasift test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ],
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "leaf.key",
            "-out",
            "leaf.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
        &[
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "leaf.pem",
            "-days",
            "2",
            "-extfile",
            "leaf.ext",
        ],
    ];
    for args in steps {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Some(dir)
}

/// A TLS server on 127.0.0.1 answering every connection with `200 ok`
/// (HTTP/1.1, then close), in a thread, until the test process ends.
fn https_server(dir: &Path) -> SocketAddr {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("leaf.pem"))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("leaf.key")).unwrap();
    // The server names its provider itself: the test must not depend on
    // the process-wide default it is checking the client installs.
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(socket) = socket else { continue };
            let config = config.clone();
            std::thread::spawn(move || {
                socket
                    .set_read_timeout(Some(std::time::Duration::from_secs(10)))
                    .ok();
                let conn = rustls::ServerConnection::new(config).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, socket);
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
                    match tls.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return, // handshake refused by the client, or EOF
                    }
                }
                let _ = tls.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                );
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    addr
}

#[tokio::test]
async fn a_client_from_client_builder_speaks_tls_to_a_loopback_server() {
    let Some(dir) = certificates("client_builder") else {
        return;
    };
    let addr = https_server(&dir);
    let ca = reqwest::Certificate::from_pem(&std::fs::read(dir.join("ca.pem")).unwrap()).unwrap();
    let client = metasift::search::client_builder()
        .add_root_certificate(ca)
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .expect("a client builds: the crypto provider is installed");
    let answer = client
        .get(format!("https://{addr}/"))
        .send()
        .await
        .expect("the TLS handshake with the loopback server succeeds");
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn the_engines_client_refuses_a_certificate_no_trusted_root_signed() {
    let Some(dir) = certificates("http_client") else {
        return;
    };
    let addr = https_server(&dir);
    let client = metasift::search::http_client(&metasift::config::ServerConfig::default())
        .expect("the engines' client builds");
    let err = client
        .get(format!("https://{addr}/"))
        .send()
        .await
        .expect_err("a certificate from an unknown CA is refused");
    let chain = format!("{err:?}");
    assert!(
        chain.contains("certificate") || chain.contains("Certificate"),
        "the error names the certificate: {chain}"
    );
}
