//! Who may ask lf-web anything. It controls agents that run with the
//! person's rights, so every request passes these checks, in this order:
//!
//! 1. `Host` names this server (its listen address, `localhost` on
//!    loopback, or a name given with `--host`): a page of another site
//!    whose name was pointed at 127.0.0.1 (DNS rebinding) is refused.
//! 2. `Origin`, when a browser sends one, is this server: another site's
//!    script or form is refused.
//! 3. The Home's token, in the query once (the printed URL): it signs in
//!    this device (`lf::devices`: a secret of its own, only its SHA-256
//!    kept in the Home) and sets an HttpOnly, SameSite=Strict cookie
//!    holding `<device id>.<secret>` — never the token — then redirects to
//!    the same page without it. From then on the cookie, checked against
//!    the Home's devices on every request (a revoked or lapsed device, or
//!    another Home's, is no device). Without either: 401. Only the page's
//!    own CSS, script, manifest and icon (the same bytes for everyone,
//!    compiled in) are served without it, so a phone can install the
//!    page.
//! 4. A request that changes anything (POST) carries this process's CSRF
//!    token in its form, as lf-web's own pages do.
//!
//! Tokens are compared in constant time.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// The largest form a POST may carry.
const FORM_MAX: usize = 64 * 1024;
/// The form field (and header) that carries the CSRF token.
pub(crate) const CSRF_FIELD: &str = "csrf";
/// How long a browser keeps a device's cookie: as long as lf keeps the
/// device unused (renewed as it is used).
const COOKIE_DAYS: i64 = lf::devices::SIGN_IN_DAYS;

pub(crate) struct Guard {
    token: String,
    csrf: String,
    /// The `Host` values accepted, lowercase, with the port.
    hosts: Vec<String>,
    /// The cookie's name carries the port: cookies are per host, not per
    /// port, and two lf-web (two Homes) may run on one machine.
    cookie: String,
}

impl Guard {
    pub(crate) fn new(token: String, address: SocketAddr, names: &[String]) -> lf::Result<Self> {
        let port = address.port();
        let mut hosts = vec![address.to_string()];
        if address.ip().is_loopback() {
            hosts.extend([format!("localhost:{port}"), format!("127.0.0.1:{port}")]);
        }
        hosts.extend(names.iter().map(|name| format!("{name}:{port}")));
        for host in &mut hosts {
            host.make_ascii_lowercase();
        }
        let mut csrf = [0u8; 32];
        getrandom::fill(&mut csrf).map_err(|error| {
            lf::Error::io(
                "cannot make lf-web's CSRF token",
                std::io::Error::other(error.to_string()),
            )
        })?;
        Ok(Guard {
            csrf: hex(&csrf),
            token,
            hosts,
            cookie: format!("lf-web-{port}"),
        })
    }

    /// This process's CSRF token, for the forms of its pages.
    pub(crate) fn csrf(&self) -> &str {
        &self.csrf
    }

    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        header_text(headers, header::HOST).is_some_and(|host| {
            self.hosts
                .iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(host))
        })
    }

    fn origin_allowed(&self, headers: &HeaderMap) -> bool {
        match headers.get(header::ORIGIN) {
            None => true,
            Some(origin) => origin
                .to_str()
                .ok()
                .and_then(|origin| origin.strip_prefix("http://"))
                .is_some_and(|host| {
                    self.hosts
                        .iter()
                        .any(|allowed| allowed.eq_ignore_ascii_case(host))
                }),
        }
    }

    /// This server's cookie, as the request carried it.
    fn cookie_value(&self, headers: &HeaderMap) -> Option<String> {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(cookie::Cookie::split_parse)
            .filter_map(Result::ok)
            .find(|cookie| cookie.name() == self.cookie)
            .map(|cookie| cookie.value().to_owned())
    }

    fn set_cookie(&self, value: &str) -> HeaderValue {
        let cookie = cookie::Cookie::build((self.cookie.clone(), value.to_owned()))
            .http_only(true)
            .same_site(cookie::SameSite::Strict)
            .path("/")
            .max_age(cookie::time::Duration::days(COOKIE_DAYS))
            .build();
        HeaderValue::from_str(&cookie.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""))
    }
}

fn is(given: &str, secret: &str) -> bool {
    bool::from(given.as_bytes().ct_eq(secret.as_bytes()))
}

/// Every request, before any handler.
pub(crate) async fn check(
    State(app): State<Arc<crate::App>>,
    request: Request,
    next: Next,
) -> Response {
    let guard = &app.guard;
    let headers = request.headers();
    if !guard.host_allowed(headers) {
        return refused(
            StatusCode::FORBIDDEN,
            "This lf-web answers only for the address it listens on (the Host header names another).",
        );
    }
    if !guard.origin_allowed(headers) {
        return refused(
            StatusCode::FORBIDDEN,
            "This lf-web answers only its own pages (the Origin header names another site).",
        );
    }
    let path = request.uri().path();
    if crate::assets::is_public(path) && request.method() == Method::GET {
        return next.run(request).await;
    }
    if let Some(given) = query_token(request.uri().query()) {
        if !is(&given, &guard.token) {
            return unauthorized();
        }
        // This device signs in; the token leaves the address bar and the
        // history at once.
        let user_agent = header_text(headers, header::USER_AGENT)
            .unwrap_or_default()
            .to_owned();
        let path = path.to_owned();
        return match app.with_lf(move |lf| lf.sign_in_device(&user_agent)).await {
            Ok(signed_in) => Response::builder()
                .status(StatusCode::SEE_OTHER)
                .header(header::LOCATION, path)
                .header(header::SET_COOKIE, guard.set_cookie(&signed_in.cookie))
                .body(Body::empty())
                .unwrap_or_default(),
            Err(error) => failed(error),
        };
    }
    let Some(given) = guard.cookie_value(headers) else {
        return unauthorized();
    };
    let again = given.clone();
    let renewed = match app.with_lf(move |lf| lf.signed_in_device(&given)).await {
        Ok(None) => return unauthorized(),
        Ok(Some(signed_in)) => signed_in.renewed,
        Err(error) => return failed(error),
    };
    let mut response = pass(request, next, &guard.csrf).await;
    // A device in use keeps its sign-in: its cookie's Max-Age anew.
    if renewed {
        response
            .headers_mut()
            .append(header::SET_COOKIE, guard.set_cookie(&again));
    }
    response
}

/// A signed-in request: a GET goes on, a change only with the CSRF token.
async fn pass(request: Request, next: Next, csrf: &str) -> Response {
    if request.method() == Method::GET || request.method() == Method::HEAD {
        return next.run(request).await;
    }
    // A change: the form must carry the CSRF token. The body is read
    // here (bounded) and handed on as it was.
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, FORM_MAX).await else {
        return refused(StatusCode::PAYLOAD_TOO_LARGE, "This form is too large.");
    };
    let given = form_field(&bytes, CSRF_FIELD)
        .or_else(|| header_text(&parts.headers, "x-lf-csrf").map(str::to_owned));
    if !given.is_some_and(|given| is(&given, csrf)) {
        return refused(
            StatusCode::FORBIDDEN,
            "This form is not from this lf-web's page (its CSRF token is missing or old): reload the page and try again.",
        );
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// `token=…` in a query, decoded.
fn query_token(query: Option<&str>) -> Option<String> {
    form_field(query?.as_bytes(), "token")
}

/// One field of an `application/x-www-form-urlencoded` text.
fn form_field(bytes: &[u8], name: &str) -> Option<String> {
    form_urlencoded::parse(bytes)
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

fn header_text(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

fn unauthorized() -> Response {
    refused(
        StatusCode::UNAUTHORIZED,
        "This device is not signed in, or was signed out: open the URL lf-web printed when it \
         started (it carries this Home's token); lf-web devices lists the devices signed in.",
    )
}

/// The library failed (the store, the OS's randomness): a 500 page with
/// its sentence.
fn failed(error: lf::Error) -> Response {
    let status = StatusCode::INTERNAL_SERVER_ERROR;
    let message = error.one_line_without_hint();
    (status, crate::pages::message_page(status, &message)).into_response()
}

pub(crate) fn refused(status: StatusCode, message: &'static str) -> Response {
    (status, crate::pages::message_page(status, message)).into_response()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
