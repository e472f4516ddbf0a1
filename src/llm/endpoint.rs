//! Base-URL handling shared by the HTTP providers: joining a user's `--base-url` with an API path
//! without doubling `/v1`, recognising local servers that need no key, naming an endpoint in
//! messages without what may be secret in a URL, and the HTTP client.

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

/// `host[:port]` of `url`, for progress lines: short, and free of credentials and query strings.
pub fn host(url: &str) -> String {
    let Ok(u) = reqwest::Url::parse(url) else {
        return "(invalid URL)".to_string();
    };
    let host = u.host_str().unwrap_or("(no host)");
    match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    }
}

/// `url` without user name, password, query and fragment: what an error may show so the user
/// can check the address (a doubled `/v1`, a wrong port), where a gateway may carry a key.
pub fn redacted(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url) else {
        return "(invalid URL)".to_string();
    };
    // Both fail only for URLs that cannot have credentials; nothing to remove then.
    let _ = u.set_username("");
    let _ = u.set_password(None);
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
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
    fn endpoints_are_named_without_secrets() {
        let url = "https://user:pw@gw.example:8443/v1/messages?api-key=sk-1#frag";
        assert_eq!(host(url), "gw.example:8443");
        assert_eq!(redacted(url), "https://gw.example:8443/v1/messages");
        assert_eq!(
            host("https://api.anthropic.com/v1/messages"),
            "api.anthropic.com"
        );
        assert_eq!(host("http://[::1]:8000/v1"), "[::1]:8000");
        assert_eq!(host("not a url"), "(invalid URL)");
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
