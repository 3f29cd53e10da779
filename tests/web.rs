//! lf-web, lf's only network surface: its guard over real HTTP on
//! 127.0.0.1 (the token, the Host and Origin, the CSRF token, ids), and
//! its page in a real headless Chromium driven through chromedriver
//! (WebDriver) at a phone's width: it lists the Sessions in the order a
//! person takes them, follows changes made by the real binaries, shows a
//! Session's strings as text, and completes a Session.

use crate::util::{Env, bin, wait_for};
use lf::wire::{SessionRecord, SessionState};
use std::io::{BufRead, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// The lf-web binary, built beside the others.
fn program() -> PathBuf {
    bin("lf-web")
}

/// A running lf-web on a free port of 127.0.0.1, stopped when dropped.
pub(crate) struct Web {
    child: Child,
    pub(crate) address: SocketAddr,
    pub(crate) token: String,
    /// `name=value` of the cookie this server set when the printed URL
    /// was opened once, as a browser keeps it.
    signed_in: String,
}

impl Web {
    pub(crate) fn start(env: &Env) -> Web {
        Self::start_with(env, &[])
    }

    fn start_with(env: &Env, args: &[&str]) -> Web {
        let mut command = env.program(program());
        command
            .args(["--listen", "127.0.0.1:0", "--print-url"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(env.dir.path().join("lf-web.stderr")).unwrap());
        let mut child = command.spawn().expect("lf-web starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let (address, token) = line
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.split_once("/?token="))
            .unwrap_or_else(|| panic!("lf-web printed no URL first: {line:?}"));
        let mut web = Web {
            address: address.parse().unwrap(),
            token: token.to_owned(),
            child,
            signed_in: String::new(),
        };
        web.signed_in = web.sign_in();
        web
    }

    /// Open the printed URL as a browser does: the cookie it sets
    /// (`name=value`).
    fn sign_in(&self) -> String {
        let opened = self.request("GET", &format!("/?token={}", self.token), &[], "");
        assert_eq!(opened.status, 303, "the printed URL signs in: {opened:?}");
        let cookie = opened.header("set-cookie").expect("a cookie");
        cookie.split(';').next().unwrap().to_owned()
    }

    pub(crate) fn host(&self) -> String {
        self.address.to_string()
    }

    fn cookie(&self) -> (String, String) {
        ("cookie".to_owned(), self.signed_in.clone())
    }

    /// A request with this server's Host and the given headers.
    fn request(&self, method: &str, path: &str, headers: &[(String, String)], body: &str) -> Reply {
        let mut all = vec![("host".to_owned(), self.host())];
        all.extend(headers.iter().cloned());
        http(self.address, method, path, &all, body)
    }

    /// A GET as a browser that opened the URL sends it.
    fn get(&self, path: &str) -> Reply {
        self.request("GET", path, &[self.cookie()], "")
    }

    /// A form POST as the page sends it (cookie and Origin), with `form`.
    fn post(&self, path: &str, form: &str) -> Reply {
        let headers = [
            self.cookie(),
            ("origin".to_owned(), format!("http://{}", self.host())),
            (
                "content-type".to_owned(),
                "application/x-www-form-urlencoded".to_owned(),
            ),
        ];
        self.request("POST", path, &headers, form)
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a server answered.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// One HTTP/1.1 request with exactly these headers, the connection closed
/// after it; the answer decoded with httparse.
fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> Reply {
    let mut stream = TcpStream::connect(address).expect("lf-web accepts");
    // A time limit for a failure (a server that never answers), not a
    // speed assertion.
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    // The head, then as many bytes as it says the body has (or all until
    // the server closes, when it does not say).
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    let (code, headers, length) = loop {
        let read = stream.read(&mut chunk).unwrap();
        bytes.extend_from_slice(&chunk[..read]);
        let mut parsed = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut parsed);
        if let httparse::Status::Complete(length) = response.parse(&bytes).unwrap() {
            let headers: Vec<(String, String)> = response
                .headers
                .iter()
                .map(|header| {
                    (
                        header.name.to_ascii_lowercase(),
                        String::from_utf8_lossy(header.value).into_owned(),
                    )
                })
                .collect();
            break (response.code.unwrap(), headers, length);
        }
        assert!(
            read > 0,
            "a partial answer: {}",
            String::from_utf8_lossy(&bytes)
        );
    };
    assert!(
        !headers
            .iter()
            .any(|(name, value)| name == "transfer-encoding" && value == "chunked"),
        "a chunked answer where a whole one was expected"
    );
    let size = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map(|(_, value)| value.parse::<usize>().unwrap());
    loop {
        if size.is_some_and(|size| bytes.len() >= length + size) {
            break;
        }
        let read = stream.read(&mut chunk).unwrap();
        if read == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..read]);
    }
    Reply {
        status: code,
        headers,
        body: String::from_utf8_lossy(&bytes[length..]).into_owned(),
    }
}

/// The status and headers of an answer, without waiting for its body
/// (an event stream's never ends).
fn head(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> Reply {
    let mut stream = TcpStream::connect(address).expect("lf-web accepts");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let read = stream.read(&mut chunk).unwrap();
        assert!(read > 0, "no head: {}", String::from_utf8_lossy(&bytes));
        bytes.extend_from_slice(&chunk[..read]);
        let mut parsed = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut parsed);
        if let httparse::Status::Complete(_) = response.parse(&bytes).unwrap() {
            return Reply {
                status: response.code.unwrap(),
                headers: response
                    .headers
                    .iter()
                    .map(|header| {
                        (
                            header.name.to_ascii_lowercase(),
                            String::from_utf8_lossy(header.value).into_owned(),
                        )
                    })
                    .collect(),
                body: String::new(),
            };
        }
    }
}

/// The headers docs/threat-model.md promises on every response (its
/// section "lf-web's response headers"), as (lowercase name, value).
fn promised_headers() -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/threat-model.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let section = doc
        .split("\n## ")
        .find(|section| section.starts_with("lf-web's response headers"))
        .expect("docs/threat-model.md has a section \"lf-web's response headers\"");
    let promised: Vec<(String, String)> = section
        .lines()
        .filter_map(|line| line.strip_prefix("- `")?.strip_suffix('`'))
        .map(|header| {
            let (name, value) = header.split_once(": ").unwrap();
            (name.to_ascii_lowercase(), value.to_owned())
        })
        .collect();
    assert!(promised.len() >= 5, "{promised:?}");
    promised
}

/// A request (method, path, headers, body) and the status it gets.
type Case<'a> = (&'a str, &'a str, Vec<(String, String)>, String, u16);

#[test]
fn every_response_carries_the_security_headers() {
    let env = Env::new();
    let session = env.new_session(&["--title", "mine"]);
    let web = Web::start(&env);
    let page = format!("/s/{}", session.id);
    let token = csrf(&web.get(&page).body);
    let own = ("host".to_owned(), web.host());
    let origin = ("origin".to_owned(), format!("http://{}", web.host()));
    let form = (
        "content-type".to_owned(),
        "application/x-www-form-urlencoded".to_owned(),
    );
    let complete = format!("{page}/complete");
    let answer = format!("{page}/answer");
    let part = format!("/part{page}");
    let opened = format!("/?token={}", web.token);
    let cases: Vec<Case> = vec![
        (
            "GET",
            "/",
            vec![own.clone(), web.cookie()],
            String::new(),
            200,
        ),
        (
            "GET",
            "/part/",
            vec![own.clone(), web.cookie()],
            String::new(),
            200,
        ),
        (
            "GET",
            &page,
            vec![own.clone(), web.cookie()],
            String::new(),
            200,
        ),
        (
            "GET",
            &part,
            vec![own.clone(), web.cookie()],
            String::new(),
            200,
        ),
        (
            "GET",
            "/events",
            vec![own.clone(), web.cookie()],
            String::new(),
            200,
        ),
        (
            "GET",
            "/static/page.css",
            vec![own.clone()],
            String::new(),
            200,
        ),
        (
            "GET",
            "/static/page.js",
            vec![own.clone()],
            String::new(),
            200,
        ),
        (
            "GET",
            "/static/icon.svg",
            vec![own.clone()],
            String::new(),
            200,
        ),
        (
            "GET",
            "/manifest.webmanifest",
            vec![own.clone()],
            String::new(),
            200,
        ),
        ("GET", &opened, vec![own.clone()], String::new(), 303),
        (
            "GET",
            "/nothing-here",
            vec![own.clone(), web.cookie()],
            String::new(),
            404,
        ),
        (
            "GET",
            "/s/not-an-id",
            vec![own.clone(), web.cookie()],
            String::new(),
            404,
        ),
        (
            "GET",
            &complete,
            vec![own.clone(), web.cookie()],
            String::new(),
            405,
        ),
        ("GET", "/", vec![own.clone()], String::new(), 401),
        ("GET", "/?token=0000", vec![own.clone()], String::new(), 401),
        (
            "GET",
            "/",
            vec![("host".to_owned(), "evil.example".to_owned()), web.cookie()],
            String::new(),
            403,
        ),
        (
            "GET",
            "/",
            vec![
                own.clone(),
                web.cookie(),
                ("origin".to_owned(), "http://evil.example".to_owned()),
            ],
            String::new(),
            403,
        ),
        (
            "POST",
            &complete,
            vec![own.clone(), web.cookie(), origin.clone(), form.clone()],
            "csrf=0".to_owned(),
            403,
        ),
        (
            "POST",
            &answer,
            vec![own.clone(), web.cookie(), origin.clone(), form.clone()],
            format!("csrf={token}&answer=maybe"),
            400,
        ),
        (
            "POST",
            &answer,
            vec![own.clone(), web.cookie(), origin.clone(), form.clone()],
            format!("csrf={token}&answer=allow"),
            409,
        ),
        (
            "POST",
            &complete,
            vec![own.clone(), web.cookie(), origin.clone(), form.clone()],
            format!("csrf={token}"),
            303,
        ),
    ];
    let promised = promised_headers();
    for (method, path, headers, body, status) in &cases {
        let reply = head(web.address, method, path, headers, body);
        assert_eq!(reply.status, *status, "{method} {path}: {reply:?}");
        for (name, value) in &promised {
            let given: Vec<&str> = reply
                .headers
                .iter()
                .filter(|(key, _)| key == name)
                .map(|(_, value)| value.as_str())
                .collect();
            assert_eq!(
                given,
                [value.as_str()],
                "{method} {path} ({status}): {name}"
            );
        }
    }
}

/// The CSRF token in a page's forms.
fn csrf(page: &str) -> String {
    let start = page
        .find(r#"name="csrf" value=""#)
        .expect("the page has a form with the CSRF token")
        + r#"name="csrf" value=""#.len();
    page[start..start + 64].to_owned()
}

#[test]
fn every_request_needs_the_token_then_its_cookie() {
    let env = Env::new();
    let session = env.new_session(&["--title", "mine"]);
    let web = Web::start(&env);
    let page = format!("/s/{}", session.id);
    let complete = format!("/s/{}/complete", session.id);
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/part/"),
        ("GET", page.as_str()),
        ("GET", "/events"),
        ("POST", complete.as_str()),
        ("GET", "/?token=0000"),
        ("GET", "/nothing-here"),
    ] {
        let reply = web.request(method, path, &[], "");
        assert_eq!(reply.status, 401, "{method} {path}: {reply:?}");
        assert_eq!(reply.header("set-cookie"), None, "{method} {path}");
    }
    // A cookie with another token is no cookie.
    let wrong = (
        "cookie".to_owned(),
        format!("lf-web-{}={}", web.address.port(), "0".repeat(64)),
    );
    assert_eq!(web.request("GET", "/", &[wrong], "").status, 401);
    // The printed URL: a cookie the page's scripts cannot read and no
    // other site's request carries, then the same page without the token.
    let opened = web.request("GET", &format!("{page}?token={}", web.token), &[], "");
    assert_eq!(opened.status, 303, "{opened:?}");
    assert_eq!(opened.header("location"), Some(page.as_str()));
    let cookie = opened.header("set-cookie").unwrap();
    let (name_value, attributes) = cookie.split_once(';').unwrap();
    assert!(
        name_value.starts_with(&format!("lf-web-{}=device-", web.address.port())),
        "{cookie}"
    );
    let attributes: Vec<&str> = attributes.split(';').map(str::trim).collect();
    assert!(attributes.contains(&"HttpOnly"), "{cookie}");
    assert!(attributes.contains(&"SameSite=Strict"), "{cookie}");
    assert_eq!(web.get("/").status, 200);
    assert_eq!(web.get(&page).status, 200);
    // The page's own files hold nothing of the Home: a phone installs it.
    for asset in [
        "/manifest.webmanifest",
        "/static/icon.svg",
        "/static/page.js",
    ] {
        assert_eq!(web.request("GET", asset, &[], "").status, 200, "{asset}");
    }
    // The token is the Home's, owner-only, and the same next time.
    let file = env.home().join("web.token");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), web.token);
    drop(web);
    let again = Web::start(&env);
    assert_eq!(again.get("/").status, 200, "the same token after a restart");
    drop(again);
    let renewed = Web::start_with(&env, &["--new-token"]);
    assert_ne!(renewed.token, "", "a token");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim(),
        renewed.token
    );
    let old = (
        "cookie".to_owned(),
        format!(
            "lf-web-{}={}",
            renewed.address.port(),
            web_token_of(&opened)
        ),
    );
    assert_eq!(renewed.request("GET", "/", &[old], "").status, 401);
    assert_eq!(renewed.get("/").status, 200);
}

/// The value a Set-Cookie header carried.
fn web_token_of(reply: &Reply) -> String {
    let cookie = reply.header("set-cookie").unwrap();
    cookie
        .split(';')
        .next()
        .unwrap()
        .split_once('=')
        .unwrap()
        .1
        .to_owned()
}

/// `lf-web devices`, decoded, and checked against its schema.
fn devices(env: &Env) -> Vec<lf::wire::Device> {
    let raw: serde_json::Value = env.run("lf-web", &["devices"]).json();
    let schema = crate::schema::read_json("schema/device.schema.json");
    crate::schema::validate(&schema, &schema, &raw, "").unwrap();
    serde_json::from_value(raw).unwrap()
}

#[test]
fn the_cookie_holds_a_devices_own_sign_in_never_the_homes_token() {
    let env = Env::new();
    env.new_session(&["--title", "mine"]);
    let web = Web::start(&env);
    let agent = "Mozilla/5.0 (Linux; Android 14; Pixel 8) lf-test";
    let opened = web.request(
        "GET",
        &format!("/?token={}", web.token),
        &[("user-agent".to_owned(), agent.to_owned())],
        "",
    );
    assert_eq!(opened.status, 303, "{opened:?}");
    let set = opened.header("set-cookie").unwrap();
    let phone = web_token_of(&opened);
    // `<device id>.<secret>`: the device's own, not the Home's token.
    assert!(!set.contains(&web.token), "{set}");
    let (id, secret) = phone.split_once('.').unwrap();
    assert!(lf::ids::DeviceId::parse(id).is_ok(), "{phone}");
    assert_eq!(secret.len(), 64);
    assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_ne!(secret, web.token);
    let attributes: Vec<&str> = set.split(';').skip(1).map(str::trim).collect();
    for wanted in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=2592000"] {
        assert!(attributes.contains(&wanted), "{wanted}: {set}");
    }
    let cookie = |value: &str| {
        (
            "cookie".to_owned(),
            format!("lf-web-{}={value}", web.address.port()),
        )
    };
    assert_eq!(web.request("GET", "/", &[cookie(&phone)], "").status, 200);
    // The Home keeps only the secret's digest.
    for file in [lf::home::DATABASE_FILE, "loopflow.db-wal"] {
        if let Ok(bytes) = std::fs::read(env.home().join(file)) {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(secret), "{file} holds the secret");
        }
    }
    // Listed, with what its browser said; the test helper's sign-in too.
    let listed = devices(&env);
    assert_eq!(listed.len(), 2, "{listed:?}");
    let device = listed.iter().find(|device| device.id == id).unwrap();
    assert_eq!(device.label, agent);
    assert!(device.expires_at > device.last_seen_at);
    // What is no device's cookie: the Home's token itself (the old
    // cookie), a wrong secret, an unknown id, anything else.
    let unknown = format!("{}.{secret}", lf::ids::DeviceId::new().as_str());
    for value in [
        web.token.clone(),
        format!("{id}.{}", "0".repeat(64)),
        format!("{id}.{}", web.token),
        unknown,
        id.to_owned(),
        String::new(),
    ] {
        let reply = web.request("GET", "/", &[cookie(&value)], "");
        assert_eq!(reply.status, 401, "{value}: {reply:?}");
    }
    // Another Home's token, and another Home's device, are refused here.
    let other = Env::new();
    let elsewhere = Web::start(&other);
    let foreign = web.request("GET", &format!("/?token={}", elsewhere.token), &[], "");
    assert_eq!(foreign.status, 401, "{foreign:?}");
    assert_eq!(foreign.header("set-cookie"), None);
    let foreign_device = elsewhere.signed_in.split_once('=').unwrap().1.to_owned();
    assert_eq!(
        web.request("GET", "/", &[cookie(&foreign_device)], "")
            .status,
        401
    );
    // Revoked: refused from the next request on; the other device stays.
    let revoked: Vec<lf::wire::Device> = env.run("lf-web", &["revoke", id]).json();
    assert_eq!(revoked.len(), 1);
    assert_eq!(revoked[0].id, id);
    let reply = web.request("GET", "/", &[cookie(&phone)], "");
    assert_eq!(reply.status, 401, "{reply:?}");
    assert_eq!(web.get("/").status, 200, "the other device is signed in");
    assert!(devices(&env).iter().all(|device| device.id != id));
    env.attempt("lf-web", &["revoke", id])
        .fails_with(3, "device_not_found");
    env.attempt("lf-web", &["revoke", "phone"])
        .fails_with(2, "bad_id");
    let all: Vec<lf::wire::Device> = env.run("lf-web", &["revoke", "--all"]).json();
    assert_eq!(all.len(), 1);
    assert_eq!(web.get("/").status, 401);
    assert_eq!(devices(&env), []);
}

#[test]
fn another_host_or_origin_is_refused() {
    let env = Env::new();
    env.new_session(&["--title", "mine"]);
    let web = Web::start(&env);
    let port = web.address.port();
    // DNS rebinding: another site's name pointed at 127.0.0.1.
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "127.0.0.1".to_owned(),
    ] {
        let reply = http(
            web.address,
            "GET",
            "/",
            &[("host".to_owned(), host.clone()), web.cookie()],
            "",
        );
        assert_eq!(reply.status, 403, "Host {host}: {reply:?}");
    }
    let localhost = http(
        web.address,
        "GET",
        "/",
        &[
            ("host".to_owned(), format!("localhost:{port}")),
            web.cookie(),
        ],
        "",
    );
    assert_eq!(localhost.status, 200, "localhost is this machine");
    // Another site's page or form.
    for origin in [
        "http://evil.example",
        "null",
        &format!("https://{}", web.host()),
    ] {
        let reply = web.request(
            "GET",
            "/",
            &[web.cookie(), ("origin".to_owned(), origin.to_owned())],
            "",
        );
        assert_eq!(reply.status, 403, "Origin {origin}: {reply:?}");
    }
    let own = web.request(
        "GET",
        "/",
        &[
            web.cookie(),
            ("origin".to_owned(), format!("http://{}", web.host())),
        ],
        "",
    );
    assert_eq!(own.status, 200);
}

#[test]
fn a_post_without_the_csrf_token_is_refused_and_with_it_completes() {
    let env = Env::new();
    let session = env.new_session(&["--title", "to complete"]);
    let web = Web::start(&env);
    let path = format!("/s/{}/complete", session.id);
    for form in [
        "",
        "csrf=",
        &format!("csrf={}", "0".repeat(64)),
        &format!("token={}", web.token),
    ] {
        let reply = web.post(&path, form);
        assert_eq!(reply.status, 403, "form {form:?}: {reply:?}");
        assert_eq!(
            env.show(&session.id).state,
            SessionState::Unknown,
            "nothing changed"
        );
    }
    let token = csrf(&web.get(&format!("/s/{}", session.id)).body);
    // The right token from another site's form is still another site's.
    let foreign = web.request(
        "POST",
        &path,
        &[
            web.cookie(),
            ("origin".to_owned(), "http://evil.example".to_owned()),
            (
                "content-type".to_owned(),
                "application/x-www-form-urlencoded".to_owned(),
            ),
        ],
        &format!("csrf={token}"),
    );
    assert_eq!(foreign.status, 403);
    assert_eq!(env.show(&session.id).state, SessionState::Unknown);
    let reply = web.post(&path, &format!("csrf={token}"));
    assert_eq!(reply.status, 303, "{reply:?}");
    assert_eq!(
        reply.header("location"),
        Some(format!("/s/{}", session.id).as_str())
    );
    let record = env.show(&session.id);
    assert_eq!(record.state, SessionState::Closed);
    // As lf-session-complete's: a second completion is refused.
    assert_eq!(web.post(&path, &format!("csrf={token}")).status, 409);
}

/// Text as maud writes it into a page (what `&`, `<`, `>` and `"` become).
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Whether a refusal's page says, as text, what the binary said (its
/// sentence, without the hint that names a command to type there).
fn says_as_text(page: &str, said: &str) -> bool {
    let sentence = said.split("; see it").next().unwrap();
    page.contains(&format!(r#"<p class="message">{}</p>"#, escaped(sentence)))
}

#[test]
fn reply_and_answer_need_the_csrf_token_and_are_refused_as_the_binaries_are() {
    use crate::session_send::{claude_hook, prompts, waiting_for_a_reply};
    let env = Env::new();
    let (record, _pane) = waiting_for_a_reply(&env);
    let web = Web::start(&env);
    let page = web.get(&format!("/s/{}", record.id)).body;
    // Waiting for a reply: the field and its button, no answer buttons.
    assert!(page.contains(r#"name="text""#), "{page}");
    assert!(!page.contains(r#"name="answer""#), "{page}");
    let token = csrf(&page);
    let reply = format!("/s/{}/reply", record.id);
    let answer = format!("/s/{}/answer", record.id);
    for (path, form) in [
        (&reply, "text=hello".to_owned()),
        (&reply, format!("text=hello&csrf={}", "0".repeat(64))),
        (&answer, "answer=allow".to_owned()),
        (&answer, "answer=deny&csrf=".to_owned()),
    ] {
        let refused = web.post(path, &form);
        assert_eq!(refused.status, 403, "{path} {form:?}: {refused:?}");
    }
    // Not waiting for an approval: refused with the library's words.
    let not_approve = web.post(&answer, &format!("csrf={token}&answer=allow"));
    assert_eq!(not_approve.status, 409, "{not_approve:?}");
    let said = env
        .attempt("lf-session-answer", &[&record.id, "allow"])
        .fails_with(4, "not_waiting_for")
        .message;
    assert!(
        says_as_text(&not_approve.body, &said),
        "{said}\n{}",
        not_approve.body
    );
    // The agent works (its prompt submitted): a reply is refused, as
    // lf-session-send's, and nothing reaches the agent.
    claude_hook(&env, &record.id, "UserPromptSubmit");
    let working = web.post(&reply, &format!("csrf={token}&text=are+you+there%3F"));
    assert_eq!(working.status, 409, "{working:?}");
    let said = env
        .attempt("lf-session-send", &[&record.id, "are you there?"])
        .fails_with(4, "not_waiting_for")
        .message;
    assert!(
        says_as_text(&working.body, &said),
        "{said}\n{}",
        working.body
    );
    assert!(
        !web.get(&format!("/s/{}", record.id))
            .body
            .contains(r#"name="text""#)
    );
    // An answer that is none of the three.
    assert_eq!(
        web.post(&answer, &format!("csrf={token}&answer=maybe"))
            .status,
        400
    );
    assert_eq!(prompts(&env), ["first"], "nothing was sent");
}

#[test]
fn it_does_not_start_inside_an_lf_session() {
    let env = Env::new();
    for name in ["LF_RUN_ID", "LF_SESSION_ID"] {
        let mut command = env.json_errors("lf-web");
        command
            .args(["--listen", "127.0.0.1:0", "--no-qr"])
            .env(name, "01J0000000000000000000000");
        env.run_command(command)
            .fails_with(2, "agent_acts_for_person");
    }
    assert!(
        !env.home().join("web.token").exists(),
        "a refused start makes no token"
    );
}

#[test]
fn a_sessions_strings_are_text_and_ids_are_checked() {
    let env = Env::new();
    let hostile = "<img src=x onerror=alert(1)>";
    let session = env.new_session(&["--title", hostile]);
    let other = Env::new();
    let elsewhere = other.new_session(&["--title", "another Home's"]);
    let web = Web::start(&env);
    for path in [
        "/".to_owned(),
        "/part/".to_owned(),
        format!("/s/{}", session.id),
    ] {
        let page = web.get(&path).body;
        assert!(
            page.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{path}: the title is shown as text\n{page}"
        );
        assert!(
            !page.contains(hostile),
            "{path}: the title is not markup\n{page}"
        );
    }
    // Another Home's Session, a prefix, and what is no id at all.
    for path in [
        format!("/s/{}", elsewhere.id),
        format!("/part/s/{}", elsewhere.id),
        format!("/s/{}", &session.id[..8]),
        format!("/s/{}", session.id.to_uppercase()),
        "/s/..%2f..%2fetc%2fpasswd".to_owned(),
        "/s/%3Cscript%3E".to_owned(),
    ] {
        let reply = web.get(&path);
        assert_eq!(reply.status, 404, "{path}: {reply:?}");
        assert!(!reply.body.contains("<script"), "{path}");
    }
    let token = csrf(&web.get(&format!("/s/{}", session.id)).body);
    let reply = web.post(
        &format!("/s/{}/complete", elsewhere.id),
        &format!("csrf={token}"),
    );
    assert_eq!(reply.status, 404);
    assert_eq!(other.show(&elsewhere.id).state, SessionState::Unknown);
}

#[test]
fn listening_beyond_loopback_is_asked_for_and_errors_say_what_to_do() {
    let env = Env::new();
    // The words are pinned in tests/messages.rs.
    env.attempt("lf-web", &["--listen", "0.0.0.0:0"])
        .fails_with(2, "command_line");
    env.attempt("lf-web", &["--listen", "[::]:0"])
        .fails_with(2, "command_line");
    env.attempt("lf-web", &["--listen", "nowhere"])
        .fails_with(2, "command_line");
    assert!(
        !env.home().join("web.token").exists(),
        "a refused command line makes no token"
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    env.attempt("lf-web", &["--listen", &address])
        .fails_with(1, "io");
    let help = env.run("lf-web", &["--help"]);
    help.ok();
    assert!(help.stdout.contains("Examples:"), "{}", help.stdout);
}

/// lf-web started with stdout and stderr to files (as a service manager
/// logs them), once it says it serves: its stderr, and the child.
fn started_logged(env: &Env, args: &[&str]) -> (Child, String, PathBuf) {
    let out = env.dir.path().join("lf-web.log.stdout");
    let err = env.dir.path().join("lf-web.log.stderr");
    let mut command = env.program(program());
    command
        .args(args)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    let child = command.spawn().expect("lf-web starts");
    let said = wait_for("lf-web to say it serves", 20, || {
        let said = std::fs::read_to_string(&err).ok()?;
        said.contains("serving the Home").then_some(said)
    });
    (child, said, out)
}

#[test]
fn the_url_goes_only_to_a_terminal_or_when_asked_and_remote_says_it_is_clear_text() {
    let env = Env::new();
    // A service manager: stdout is a log, which would keep the token.
    let (mut child, said, out) = started_logged(&env, &["--listen", "127.0.0.1:0"]);
    let token = std::fs::read_to_string(env.home().join("web.token")).unwrap();
    let token = token.trim();
    let address: SocketAddr = said
        .split("on http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(said.contains("--print-url"), "{said}");
    assert!(
        said.contains(&env.home().join("web.token").display().to_string()),
        "it says where the token is: {said}"
    );
    assert!(!said.contains(token), "no token on stderr either: {said}");
    // It serves: the URL built from the token file signs in.
    let opened = http(
        address,
        "GET",
        &format!("/?token={token}"),
        &[("host".to_owned(), address.to_string())],
        "",
    );
    assert_eq!(opened.status, 303, "{opened:?}");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "",
        "nothing on stdout"
    );

    // Every interface: refused without --allow-remote, and with it said
    // as what it is, with what crosses the network in clear.
    env.attempt("lf-web", &["--listen", "0.0.0.0:0"])
        .fails_with(2, "command_line");
    let (mut child, said, out) = started_logged(
        &env,
        &["--listen", "0.0.0.0:0", "--allow-remote", "--print-url"],
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(said.contains("every interface of this machine"), "{said}");
    assert!(said.contains("in clear"), "{said}");
    assert!(
        said.contains("SSH tunnel") && said.contains("VPN"),
        "{said}"
    );
    let printed = std::fs::read_to_string(&out).unwrap();
    assert!(
        printed.starts_with("http://0.0.0.0:") && printed.trim_end().ends_with(token),
        "--print-url prints the URL: {printed:?}"
    );
}

/// lf-web's bounds (web/src/lib.rs, web/src/live.rs), as the test knows
/// them.
const HEADER_TIMEOUT_SECS: u64 = 10;
const STREAMS_MAX: usize = 64;

#[test]
fn slow_clients_cannot_exhaust_it() {
    use std::time::{Duration, Instant};
    let env = Env::new();
    env.new_session(&["--title", "mine"]);
    let web = Web::start(&env);
    // 300 clients that send half a request's head, and hold.
    let started = Instant::now();
    let half = format!("GET / HTTP/1.1\r\nhost: {}\r\nx-slow: ", web.host());
    let mut held: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut stream = TcpStream::connect(web.address).expect("a connection");
            stream.write_all(half.as_bytes()).unwrap();
            stream
        })
        .collect();
    // A person's request is still answered (once the slow ones' time is
    // up, at the latest), and so is the next.
    let asked = Instant::now();
    assert_eq!(web.get("/").status, 200);
    let first = asked.elapsed();
    let asked = Instant::now();
    assert_eq!(web.get("/").status, 200);
    eprintln!(
        "with 300 half-sent requests held: answered after {first:?}, then after {:?}",
        asked.elapsed()
    );
    assert!(
        first < Duration::from_secs(3 * HEADER_TIMEOUT_SECS),
        "{first:?}"
    );
    // Each half-sent request is closed by lf-web after the header
    // timeout, answered with nothing: never held open.
    for stream in &mut held {
        stream
            .set_read_timeout(Some(Duration::from_secs(4 * HEADER_TIMEOUT_SECS)))
            .unwrap();
        let mut rest = Vec::new();
        match stream.read_to_end(&mut rest) {
            Ok(_) => {}
            Err(error) => assert_eq!(
                error.kind(),
                std::io::ErrorKind::ConnectionReset,
                "a half-sent request still open after {:?}",
                started.elapsed()
            ),
        }
        assert_eq!(String::from_utf8_lossy(&rest), "");
    }
    let closed = started.elapsed();
    eprintln!("the 300 half-sent requests were closed within {closed:?}");
    assert!(closed >= Duration::from_secs(HEADER_TIMEOUT_SECS));

    // Event streams are bounded too, below the connections: past the
    // bound a page's stream is refused, and pages are still served.
    let open_stream = || {
        let mut stream = TcpStream::connect(web.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let request = format!(
            "GET /events HTTP/1.1\r\nhost: {}\r\ncookie: {}\r\n\r\n",
            web.host(),
            web.cookie().1
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            assert_eq!(stream.read(&mut byte).unwrap(), 1, "the stream's head");
            head.push(byte[0]);
        }
        let status = String::from_utf8_lossy(&head[9..12]).into_owned();
        (stream, status)
    };
    let streams: Vec<(TcpStream, String)> = (0..STREAMS_MAX).map(|_| open_stream()).collect();
    assert!(streams.iter().all(|(_, status)| status == "200"));
    let (_refused, status) = open_stream();
    assert_eq!(status, "503", "one stream past the bound");
    assert_eq!(web.get("/").status, 200);
}

#[test]
fn a_closed_stdout_does_not_stop_it() {
    let env = Env::new();
    let mut command = env.program(program());
    command
        .args(["--listen", "127.0.0.1:0", "--print-url"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    // Nobody reads what it prints.
    drop(child.stdout.take());
    let token = wait_for("lf-web to make its token", 20, || {
        std::fs::read_to_string(env.home().join("web.token")).ok()
    });
    assert_eq!(token.trim().len(), 64);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let alive = child.try_wait().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(alive, None, "lf-web ended when its stdout closed");
}

/// The browser tests: Chromium as Debian ships it, through chromedriver.
pub(crate) mod browser {
    use super::*;
    use fantoccini::{Client, ClientBuilder, Locator};
    use serde::Deserialize;

    /// A headless Chromium at a phone's size (390×844 CSS pixels), with a
    /// profile and a HOME of its own, ended when dropped.
    pub struct Browser {
        pub client: Client,
        runtime: tokio::runtime::Runtime,
        driver: Child,
        port: u16,
        _profile: tempfile::TempDir,
    }

    impl Drop for Browser {
        fn drop(&mut self) {
            let client = self.client.clone();
            let _ = self.runtime.block_on(client.close());
            let _ = self.driver.kill();
            let _ = self.driver.wait();
        }
    }

    impl Browser {
        pub fn start() -> Browser {
            let driver_path = PathBuf::from("/usr/bin/chromedriver");
            assert!(
                driver_path.is_file() && std::path::Path::new("/usr/bin/chromium").is_file(),
                "the browser tests need Debian's chromium and chromium-driver \
                 (apt-get install chromium chromium-driver; scripts/test installs them)"
            );
            let profile = tempfile::tempdir().unwrap();
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let driver = Command::new(driver_path)
                .arg(format!("--port={port}"))
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", profile.path())
                .env("XDG_CONFIG_HOME", profile.path().join("config"))
                .env("XDG_CACHE_HOME", profile.path().join("cache"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver starts");
            wait_for("chromedriver to listen", 30, || {
                TcpStream::connect(("127.0.0.1", port)).ok()
            });
            let capabilities = serde_json::json!({
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": "/usr/bin/chromium",
                    "args": [
                        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        "--disable-dev-shm-usage",
                        format!("--user-data-dir={}", profile.path().join("chromium").display()),
                    ],
                    "mobileEmulation": {
                        "deviceMetrics": { "width": 390, "height": 844, "pixelRatio": 2.0 },
                    },
                },
            });
            let serde_json::Value::Object(capabilities) = capabilities else {
                unreachable!()
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            let client = runtime
                .block_on(
                    ClientBuilder::new(connector)
                        .capabilities(capabilities)
                        .connect(&format!("http://127.0.0.1:{port}")),
                )
                .expect("chromedriver starts a headless Chromium");
            Browser {
                client,
                runtime,
                driver,
                port,
                _profile: profile,
            }
        }

        /// A Chrome DevTools command, through chromedriver's own endpoint.
        pub fn devtools<T: serde::de::DeserializeOwned>(&self, command: &str) -> T {
            let session = self.block(self.client.session_id()).unwrap().unwrap();
            let body = serde_json::json!({ "cmd": command, "params": {} }).to_string();
            let reply = http(
                SocketAddr::from(([127, 0, 0, 1], self.port)),
                "POST",
                &format!("/session/{session}/goog/cdp/execute"),
                &[
                    ("host".to_owned(), format!("127.0.0.1:{}", self.port)),
                    ("content-type".to_owned(), "application/json".to_owned()),
                ],
                &body,
            );
            #[derive(Deserialize)]
            struct Answer<T> {
                value: T,
            }
            let answer: Answer<T> = serde_json::from_str(&reply.body)
                .unwrap_or_else(|error| panic!("{command}: {error}: {}", reply.body));
            answer.value
        }

        pub fn block<T>(&self, future: impl std::future::Future<Output = T>) -> T {
            self.runtime.block_on(future)
        }

        /// Open a page and wait until it follows the change stream and
        /// has drawn its live part from it once.
        pub fn goto(&self, url: &str) {
            self.block(self.client.goto(url)).unwrap();
            wait_for("the page to follow the change stream", 20, || {
                let page = viewport(self);
                (page.live == "on" && page.shown).then_some(())
            });
        }

        /// Run a script in the page and decode what it returns.
        pub fn eval<T: serde::de::DeserializeOwned>(&self, script: &str) -> T {
            let value = self
                .block(self.client.execute(script, Vec::new()))
                .unwrap_or_else(|error| panic!("{script}: {error}"));
            serde_json::from_value(value.clone())
                .unwrap_or_else(|error| panic!("{script} gave {value}: {error}"))
        }

        pub fn click(&self, css: &str) {
            let element = self
                .block(self.client.find(Locator::Css(css)))
                .unwrap_or_else(|error| panic!("{css}: {error}"));
            self.block(element.click()).unwrap();
        }

        /// The rows of the Sessions list, as the page shows them.
        pub fn rows(&self) -> Vec<Row> {
            self.eval(
                "return Array.from(document.querySelectorAll('li.session')).map(li => ({\
                   id: li.dataset.id, attention: li.dataset.attention || null,\
                   title: li.querySelector('.title').textContent,\
                   waited: (li.querySelector('.waited') || {}).textContent || null,\
                   section: li.closest('section').className }))",
            )
        }
    }

    /// One row of the page's list.
    #[derive(Debug, Deserialize, PartialEq)]
    pub struct Row {
        pub id: String,
        pub attention: Option<String>,
        pub title: String,
        pub waited: Option<String>,
        pub section: String,
    }

    /// Why Chromium would not install the page as an app (none).
    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Installability {
        installability_errors: Vec<serde_json::Value>,
    }

    #[derive(Debug, Deserialize)]
    struct Viewport {
        width: u32,
        scroll_width: u32,
        images: usize,
        seq: u64,
        live: String,
        shown: bool,
    }

    fn viewport(browser: &Browser) -> Viewport {
        browser.eval(
            "return { width: window.innerWidth, \
               scroll_width: document.documentElement.scrollWidth, \
               images: document.querySelectorAll('main img').length, \
               seq: Number(document.documentElement.dataset.seq || 0), \
               live: document.getElementById('live').className, \
               shown: 'shownAt' in document.documentElement.dataset }",
        )
    }

    fn hook(env: &Env, session: &SessionRecord, event: &str, extra: &str) {
        let run = env.current_run(&session.id);
        let chosen = env.chosen_native_id(&run);
        let payload =
            format!(r#"{{"hook_event_name":"{event}","session_id":"{chosen}","cwd":"/"{extra}}}"#);
        env.hook("claude", Some(&run), payload.as_bytes()).ok();
    }

    /// Issue 34: a file named `invoice\u{202e}fdp.exe` rendered as
    /// `invoiceexe.pdf`; ESC and invisible characters reached the page.
    #[test]
    fn text_that_reorders_or_hides_itself_shows_its_escapes() {
        use crate::worktree::repository;
        let env = Env::new();
        let repo = repository(&env);
        std::fs::write(repo.join("invoice\u{202e}fdp.exe"), "x").unwrap();
        std::fs::write(repo.join("esc\u{1b}[31mred"), "x").unwrap();
        let record: SessionRecord = env
            .run(
                "lf-session-new",
                &[
                    "--provider", "command", "--title", "Hidden", "--cwd", repo.to_str().unwrap(),
                    "--", "sh", "-c",
                    "printf 'screen invoice\\342\\200\\256fdp.exe zero\\342\\200\\213width\\n'; exec sleep 300",
                ],
            )
            .json();
        wait_for("the pane to show its lines", 20, || {
            env.show(&record.id)
                .terminal_ids
                .iter()
                .any(|id| id.starts_with('%'))
                .then_some(())
        });
        let web = Web::start(&env);
        let browser = Browser::start();
        browser.goto(&format!(
            "http://{}/s/{}?token={}",
            web.host(),
            record.id,
            web.token
        ));
        let screen: String = wait_for("the screen", 20, || {
            let text: String = browser
                .eval("return (document.querySelector('pre.screen') || {}).textContent || ''");
            text.contains("screen invoice").then_some(text)
        });
        // tmux keeps no zero-width character in its cells, so the pane's
        // lines come without them; were one kept, it would be an escape.
        assert!(
            screen.contains("screen invoice")
                && !screen.contains(['\u{202e}', '\u{200b}'])
                && (screen.contains("invoicefdp.exe") || screen.contains("\\u{202e}")),
            "{screen:?}"
        );
        let files: Vec<String> = browser.eval(
            "return Array.from(document.querySelectorAll('ul.files .path')).map(e => e.textContent)",
        );
        assert!(
            files.iter().any(|file| file == "invoice\\u{202e}fdp.exe"),
            "{files:?}"
        );
        assert!(
            files.iter().any(|file| file == "esc\\u{1b}[31mred"),
            "{files:?}"
        );
        let text: String = browser.eval("return document.body.textContent");
        for hidden in ['\u{202e}', '\u{200b}', '\u{1b}'] {
            assert!(!text.contains(hidden), "{hidden:?} in the page: {text:?}");
        }
        // As the server sent it, and a 404 of such a path.
        let html = web.get(&format!("/s/{}", record.id)).body;
        let missing = web.get("/s/%1B%5B2J%E2%80%AEfdp.exe").body;
        for page in [&html, &missing] {
            assert!(!page.contains(['\u{202e}', '\u{200b}', '\u{1b}']), "{page}");
        }
        assert!(missing.contains("\\u{202e}"), "{missing}");
    }

    #[test]
    fn the_page_lists_follows_and_completes_at_a_phones_width() {
        let env = Env::new();
        let hostile = "<img src=x onerror=alert(1)>";
        let reply = env.new_session(&["--title", "Write the migration for the billing tables"]);
        let idle = env.new_session(&["--title", hostile]);
        let approve = env.new_session(&["--title", "Refactor the session store"]);
        let review = env.new_session(&["--title", "Fix the flaky upload test"]);
        // A Session whose agent runs in a pane that prints colours and
        // markup, then waits.
        let screen: SessionRecord = env
            .run(
                "lf-session-new",
                &[
                    "--provider", "command", "--title", "Screen",
                    "--", "sh", "-c",
                    "printf '\\033[1;31mred\\033[0m <b>bold</b>\\n\\033]0;title\\007done\\n'; exec sleep 300",
                ],
            )
            .json();
        // Attention, as the agents' hooks and lf-session-ready tell it:
        // a reply owed first, then an approval.
        hook(&env, &reply, "Stop", "");
        hook(
            &env,
            &approve,
            "PermissionRequest",
            r#","tool_name":"Bash""#,
        );

        let web = Web::start(&env);
        let browser = Browser::start();
        browser.goto(&format!("http://{}/?token={}", web.host(), web.token));
        let rows = wait_for("the page to list the sessions", 20, || {
            let rows = browser.rows();
            (rows.len() == 5).then_some(rows)
        });
        // Approve first, then reply: the library's order; then the rest.
        let order: Vec<(&str, Option<&str>, &str)> = rows
            .iter()
            .map(|row| {
                (
                    row.id.as_str(),
                    row.attention.as_deref(),
                    row.section.as_str(),
                )
            })
            .collect();
        assert_eq!(order[0], (approve.id.as_str(), Some("approve"), "waiting"));
        assert_eq!(order[1], (reply.id.as_str(), Some("reply"), "waiting"));
        assert!(
            rows[2..]
                .iter()
                .all(|row| row.section == "rest" && row.attention.is_none())
        );
        assert!(
            rows[0]
                .waited
                .as_deref()
                .is_some_and(|waited| waited.starts_with("waited "))
        );
        // The hostile title is text: nothing it says became markup.
        let shown = rows.iter().find(|row| row.id == idle.id).unwrap();
        assert_eq!(shown.title, hostile);
        let page = viewport(&browser);
        assert_eq!(page.images, 0, "no element came from a title");
        assert_eq!(page.width, 390);
        assert!(
            page.scroll_width <= 390,
            "nothing is wider than a phone: {page:?}"
        );
        // Installable: its manifest and icon are what Chromium asks of an app.
        let installable: Installability = browser.devtools("Page.getInstallabilityErrors");
        assert!(
            installable.installability_errors.is_empty(),
            "{installable:?}"
        );

        // Live: the agent says its work is ready; the page follows.
        let before = viewport(&browser).seq;
        env.ready(&review.id, "Fixed: the test waited on a timer")
            .ok();
        let rows = wait_for("the page to show the review", 20, || {
            let rows = browser.rows();
            rows.iter()
                .any(|row| row.id == review.id && row.attention.as_deref() == Some("review"))
                .then_some(rows)
        });
        assert_eq!(rows[2].id, review.id, "reviews after replies");
        assert!(viewport(&browser).seq > before);

        let screenshot = browser.block(browser.client.screenshot()).unwrap();
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lf-web-phone.png");
        std::fs::write(&path, &screenshot).unwrap();
        eprintln!("lf-web at a phone's width (390x844): {}", path.display());

        // A Session's page: its screen as text, its strings as text.
        wait_for("the pane to show its lines", 20, || {
            env.show(&screen.id)
                .terminal_ids
                .iter()
                .any(|id| id.starts_with('%'))
                .then_some(())
        });
        browser.goto(&format!("http://{}/s/{}", web.host(), screen.id));
        let lines: String = wait_for("the screen", 20, || {
            let text: String = browser
                .eval("return (document.querySelector('pre.screen') || {}).textContent || ''");
            text.contains("done").then_some(text)
        });
        assert!(lines.contains("red <b>bold</b>\n"), "{lines:?}");
        assert!(
            !lines.contains('\u{1b}') && !lines.contains("title"),
            "{lines:?}"
        );
        browser.goto(&format!("http://{}/s/{}", web.host(), idle.id));
        let title: String = browser.eval("return document.querySelector('h1').textContent");
        assert_eq!(title, hostile);

        // Complete: the same operation as lf-session-complete.
        browser.goto(&format!("http://{}/s/{}", web.host(), review.id));
        browser.click("details.complete summary");
        browser.click("button[name=complete]");
        wait_for("the page to show the session closed", 20, || {
            let state: Option<String> = browser.eval(
                "return (document.querySelector('article.session') || {dataset: {}}).dataset.state || null",
            );
            (state.as_deref() == Some("closed")).then_some(())
        });
        assert_eq!(env.show(&review.id).state, SessionState::Closed);
        assert!(env.show(&review.id).completed_at.is_some());
    }
}

/// Exact answers from the page (issue 34): the page names the request it
/// showed and the dialog it saw; a stale page and a second tap answer
/// nothing; the request is shown whole above its buttons at a phone's
/// width. The stand-in Claude queues its dialogs (tests/answer.rs).
mod answers {
    use super::browser::Browser;
    use super::*;
    use crate::answer::{keys_taken, wait_request};
    use crate::session_send::waiting_for_a_reply;
    use lf::wire::Attention;

    /// A hidden field of the page's answer form.
    fn field(page: &str, name: &str) -> String {
        let marker = format!(r#"name="{name}" value=""#);
        let start = page
            .find(&marker)
            .unwrap_or_else(|| panic!("no {name} field: {page}"))
            + marker.len();
        page[start..start + page[start..].find('"').unwrap()].to_owned()
    }

    #[test]
    fn r34_a_stale_page_and_a_second_tap_answer_nothing() {
        let env = Env::new();
        let (record, pane) = waiting_for_a_reply(&env);
        let work = env.mkdir("repo");
        env.run(
            "lf-session-send",
            &[
                &record.id,
                "[dialogs: echo one > one.txt || touch important.txt] two",
            ],
        )
        .ok();
        let first = wait_request(&env, &record.id, "echo one > one.txt");
        let web = Web::start(&env);
        let path = format!("/s/{}", record.id);
        let stale = web.get(&path).body;
        assert_eq!(field(&stale, "request"), first.id);
        let form = |page: &str, answer: &str| {
            format!(
                "csrf={}&answer={answer}&request={}&dialog={}",
                csrf(page),
                field(page, "request"),
                field(page, "dialog")
            )
        };
        let stale_allow = form(&stale, "allow");
        // The person answers at the terminal; the next dialog comes.
        env.tmux(&["send-keys", "-t", &pane, "1"]);
        let second = wait_request(&env, &record.id, "touch important.txt");
        let refused = web.post(&format!("{path}/answer"), &stale_allow);
        assert_eq!(refused.status, 409, "{refused:?}");
        assert!(!work.join("important.txt").exists());
        assert_eq!(keys_taken(&env).len(), 1, "nothing pressed");
        // The page now shows the second, first and whole.
        let page = web.get(&path).body;
        assert_eq!(field(&page, "request"), second.id);
        assert!(page.contains("touch important.txt"), "{page}");
        // A double tap: two posts of the same form at once; one answers.
        let deny = form(&page, "deny");
        let taps: Vec<u16> = std::thread::scope(|scope| {
            let taps: Vec<_> = (0..2)
                .map(|_| scope.spawn(|| web.post(&format!("{path}/answer"), &deny).status))
                .collect();
            taps.into_iter().map(|tap| tap.join().unwrap()).collect()
        });
        let mut sorted = taps.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [303, 409], "{taps:?}");
        assert_eq!(
            keys_taken(&env),
            [
                ("echo one > one.txt".to_owned(), "1".to_owned()),
                ("touch important.txt".to_owned(), "esc".to_owned())
            ]
        );
        assert!(!work.join("important.txt").exists());
    }

    #[test]
    fn r34_the_request_is_shown_whole_above_its_buttons_at_a_phones_width() {
        let env = Env::new();
        let (record, _pane) = waiting_for_a_reply(&env);
        let command = "git push --force-with-lease origin feature/very-long-branch-name-that-goes-on \
                       && ./scripts/deploy.sh --prod --region eu-west-1";
        env.run(
            "lf-session-send",
            &[&record.id, &format!("[dialogs: {command}] ship it")],
        )
        .ok();
        wait_request(&env, &record.id, command);
        let web = Web::start(&env);
        let browser = Browser::start();
        browser.goto(&format!("http://{}/?token={}", web.host(), web.token));
        browser.goto(&format!("http://{}/s/{}", web.host(), record.id));
        #[derive(Debug, serde::Deserialize)]
        struct Shown {
            input: String,
            tool: String,
            folder: String,
            height: f64,
            allow_bottom: f64,
            deny_bottom: f64,
            input_top: f64,
            allow_top: f64,
            scroll_width: f64,
            always_buttons_shown: usize,
            always_rule: String,
        }
        let shown: Shown = wait_for("the request on the page", 20, || {
            let ready: bool =
                browser.eval("return !!document.querySelector('section.request pre.input')");
            ready.then(|| {
                browser.eval(
                    "const q = s => document.querySelector(s); \
                     const box = s => q(s).getBoundingClientRect(); \
                     return { input: q('section.request pre.input').textContent, \
                       tool: q('section.request dd.tool').textContent, \
                       folder: q('section.request dd.path').textContent, \
                       height: window.innerHeight, \
                       allow_bottom: box('button[value=allow]').bottom, \
                       deny_bottom: box('button[value=deny]').bottom, \
                       input_top: box('section.request pre.input').top, \
                       allow_top: box('button[value=allow]').top, \
                       scroll_width: document.documentElement.scrollWidth, \
                       always_buttons_shown: Array.from(document.querySelectorAll('button[value=allow_always]')).filter(b => b.checkVisibility()).length, \
                       always_rule: (q('details.always q.rule') || {textContent: ''}).textContent }",
                )
            })
        });
        assert_eq!(shown.input, command, "whole, never cut");
        assert_eq!(shown.tool, "Bash");
        assert_eq!(shown.folder, record.cwd);
        assert!(
            shown.input_top < shown.allow_top,
            "the request above its buttons: {shown:?}"
        );
        assert!(
            shown.allow_bottom <= shown.height && shown.deny_bottom <= shown.height,
            "Allow and Deny on the first screen: {shown:?}"
        );
        assert!(
            shown.scroll_width <= 390.0,
            "nothing wider than a phone: {shown:?}"
        );
        assert_eq!(shown.always_buttons_shown, 0, "Allow always is not one tap");
        assert_eq!(
            shown.always_rule,
            "Yes, and don't ask again for this command"
        );
        let screenshot = browser.block(browser.client.screenshot()).unwrap();
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lf-web-request.png");
        std::fs::write(&path, &screenshot).unwrap();
        eprintln!("a request at a phone's width (390x844): {}", path.display());
        browser.click("button[value=deny]");
        wait_for("the request to be refused", 20, || {
            (env.show(&record.id).attention == Some(Attention::Reply)).then_some(())
        });
        assert_eq!(keys_taken(&env), [(command.to_owned(), "esc".to_owned())]);
    }
}
