//! A tiny HTTP/1.1 mock server on a real socket: it answers with canned responses in order
//! (the last one repeats) or from a function of the request, can drop or stall a connection,
//! and records every request it saw.

#![allow(dead_code)]

pub mod provider;
pub mod scripted;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Clone, Debug)]
pub enum Canned {
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Read the request, then close the socket without answering.
    Drop,
    /// Read the request, wait this long, then close the socket (the client should time out first).
    Stall(Duration),
}

pub fn json(status: u16, body: serde_json::Value) -> Canned {
    Canned::Respond {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.to_string(),
    }
}

pub fn raw(status: u16, headers: &[(&str, &str)], body: &str) -> Canned {
    Canned::Respond {
        status,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.to_string(),
    }
}

#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Lower-cased header names.
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl Seen {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("request body is JSON")
    }
}

pub struct MockServer {
    pub base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// Answers a request; the second argument counts the requests before it.
pub type Responder = Arc<dyn Fn(&Seen, usize) -> Canned + Send + Sync>;

impl MockServer {
    pub async fn start(script: Vec<Canned>) -> Self {
        Self::start_with(Arc::new(move |_: &Seen, n: usize| {
            script[n.min(script.len() - 1)].clone()
        }))
        .await
    }

    pub async fn start_with(respond: Responder) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        tokio::spawn(async move {
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    return;
                };
                let (seen, respond) = (seen2.clone(), respond.clone());
                tokio::spawn(async move { serve(sock, seen, respond).await });
            }
        });
        Self { base_url, seen }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

async fn serve(mut sock: TcpStream, seen: Arc<Mutex<Vec<Seen>>>, respond: Responder) {
    let Some(req) = read_request(&mut sock).await else {
        return;
    };
    let canned = {
        let mut seen = seen.lock().unwrap();
        let c = respond(&req, seen.len());
        seen.push(req);
        c
    };
    match canned {
        Canned::Drop => drop(sock),
        Canned::Stall(d) => {
            tokio::time::sleep(d).await;
            drop(sock);
        }
        Canned::Respond {
            status,
            headers,
            body,
        } => {
            let mut out = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            out.push_str(&body);
            let _ = sock.write_all(out.as_bytes()).await;
            let _ = sock.shutdown().await;
        }
    }
}

async fn read_request(sock: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..]).to_string();
    Some(Seen {
        method,
        path,
        headers,
        body,
    })
}
