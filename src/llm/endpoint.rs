//! Base-URL handling shared by the HTTP providers: joining a user's `--base-url` with an API path
//! without doubling `/v1`, recognising local servers that need no key, and the HTTP client.

/// The HTTP client for a provider. reqwest is built without a TLS crypto provider (to keep
/// aws-lc out of the build); ring is installed as the process default first. Idempotent: a
/// provider already installed stays.
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// `https://host` + `chat/completions` -> `https://host/v1/chat/completions`; a base that already
/// ends in `/v1` (common for gateways and llama.cpp/vLLM docs) is not given a second one.
pub fn join(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    let path = path.trim_start_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/{path}")
    } else {
        format!("{base}/v1/{path}")
    }
}

/// True for loopback hosts, where OpenAI-compatible servers usually run without a key.
pub fn is_local(base: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
    {
        Ok(ip) => ip.is_loopback() || ip.is_unspecified(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_without_doubling_v1() {
        assert_eq!(join("https://a.b", "messages"), "https://a.b/v1/messages");
        assert_eq!(join("https://a.b/", "messages"), "https://a.b/v1/messages");
        assert_eq!(
            join("http://h:8000/v1/", "chat/completions"),
            "http://h:8000/v1/chat/completions"
        );
        assert_eq!(
            join("https://gw/proxy", "messages"),
            "https://gw/proxy/v1/messages"
        );
    }

    #[test]
    fn https_clients_can_be_built() {
        // reqwest panics when no crypto provider is installed.
        let _ = client();
        let _ = client();
    }

    #[test]
    fn local_hosts() {
        assert!(is_local("http://localhost:8080"));
        assert!(is_local("http://127.0.0.1:11434/v1"));
        assert!(is_local("http://[::1]:8000"));
        assert!(!is_local("https://api.openai.com"));
        assert!(!is_local("not a url"));
    }
}
