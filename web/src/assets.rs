//! The page's own files, carried in the binary (no build step, no CDN):
//! its style, its script, the web manifest that makes it installable on a
//! phone, and its icon. They are the same bytes for everyone and hold
//! nothing of the Home, so they are the only paths served without the
//! token (a phone fetches a manifest's icon without cookies).

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use std::sync::Arc;

const FILES: [(&str, &str, &str); 4] = [
    (
        "/static/page.css",
        "text/css; charset=utf-8",
        include_str!("../assets/page.css"),
    ),
    (
        "/static/page.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/page.js"),
    ),
    (
        "/manifest.webmanifest",
        "application/manifest+json",
        include_str!("../assets/manifest.webmanifest"),
    ),
    (
        "/static/icon.svg",
        "image/svg+xml",
        include_str!("../assets/icon.svg"),
    ),
];

/// Whether a path is one of these files.
pub(crate) fn is_public(path: &str) -> bool {
    FILES.iter().any(|(file, _, _)| *file == path)
}

pub(crate) fn routes() -> Router<Arc<crate::App>> {
    FILES
        .iter()
        .fold(Router::new(), |router, &(path, kind, content)| {
            router.route(
                path,
                get(move || async move {
                    // Cached by nobody, as every response (the router's
                    // one header layer): a few kilobytes from loopback.
                    ([(header::CONTENT_TYPE, kind)], content).into_response()
                }),
            )
        })
}
