//! lf-web: lf's only network surface, a thin page over the library. It
//! shows the Sessions that need the person (the library's order and
//! records), a Session's screen and diff, and completes a Session with the
//! library's own operation; it follows the change stream to stay current.
//! Everything here is about HTTP, HTML and who may ask: `guard` checks
//! every request (the Host and Origin, the token, the CSRF token), `pages`
//! renders (escaping every string a Session holds), `live` follows the
//! change stream once for every open page, and `assets` is the page's
//! CSS, script, manifest and icon, carried in the binary.

mod assets;
mod guard;
mod live;
mod pages;

use lf_bins::Output;
use lf_bins::cmd::web::{Cli, Command};
use std::io::IsTerminal;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// What every request handler shares.
pub(crate) struct App {
    home: lf::Home,
    caller: lf::Caller,
    guard: guard::Guard,
    changes: live::Changes,
}

impl App {
    /// lf for one request, on a blocking thread (SQLite, tmux and git are
    /// blocking work).
    pub(crate) async fn with_lf<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(lf::Lf) -> lf::Result<T> + Send + 'static,
    ) -> lf::Result<T> {
        let app = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let lf = lf::Lf::at(app.home.clone(), app.caller.clone());
            work(lf)
        })
        .await
        .unwrap_or_else(|joined| {
            Err(lf::Error::io(
                "a request failed",
                std::io::Error::other(joined),
            ))
        })
    }
}

/// Run lf-web until it is stopped (Ctrl-C, SIGTERM), or list or revoke
/// its devices.
pub fn serve(cli: Cli, out: &mut Output) -> lf::Result<()> {
    let caller = lf::Caller::from_process();
    lf::session::act::refuse_agent(&caller)?;
    let lf = lf::Lf::open(caller.clone())?;
    match &cli.command {
        Some(Command::Devices) => return out.json(&lf.devices()?),
        Some(Command::Revoke {
            device: Some(id), ..
        }) => {
            return out.json(&[lf.revoke_device(id)?]);
        }
        Some(Command::Revoke { device: None, .. }) => return out.json(&lf.revoke_devices()?),
        None => {}
    }
    let home = lf.home().clone();
    if cli.listen.ip().is_unspecified() && !cli.allow_remote {
        return Err(usage(format!(
            "--listen {} is every interface of this machine: any network it is on could reach \
             it and try the token; listen on 127.0.0.1 and reach it through an SSH tunnel, or on \
             a VPN's address with --allow-remote (see the README)",
            cli.listen
        )));
    }
    if !cli.listen.ip().is_loopback() && !cli.allow_remote {
        return Err(usage(format!(
            "--listen {} is not a loopback address: anyone who can reach it could try the \
             token; add --allow-remote to listen there anyway (a VPN's address), or reach \
             127.0.0.1 through an SSH tunnel (see the README)",
            cli.listen
        )));
    }
    let token = home.web_token(cli.new_token)?;
    if cli.new_token {
        // A new token locks out every browser that had the old one.
        lf.revoke_devices()?;
    }
    let listener = std::net::TcpListener::bind(cli.listen)
        .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
        .map_err(|source| cannot_listen(cli.listen, source))?;
    let address = listener
        .local_addr()
        .map_err(|source| cannot_listen(cli.listen, source))?;
    let url = format!("http://{address}/?token={token}");
    // The URL carries the token: a terminal is shown it (and its QR code);
    // anything else (a service manager's log, a file) only when asked.
    // A reader that went away (`| head -1`) does not stop the server.
    let terminal = std::io::stdout().is_terminal();
    if terminal || cli.print_url {
        let _ = out.raw(&format!("{url}\n")).and_then(|()| out.finish());
    }
    if terminal && !cli.no_qr {
        let _ = out.raw(&qr(&url)).and_then(|()| out.finish());
    }
    eprintln!(
        "{}: serving the Home {} on http://{address}/ (Ctrl-C stops it)",
        Cli::NAME,
        home.root().display()
    );
    if !terminal && !cli.print_url {
        eprintln!(
            "{}: the URL that signs a browser in is not printed (stdout is not a terminal, and \
             a log would keep its token): open http://{address}/?token= followed by the token \
             in {}, or start lf-web with --print-url",
            Cli::NAME,
            home.web_token_file().display()
        );
    }
    if !address.ip().is_loopback() {
        let reach = if address.ip().is_unspecified() {
            format!("every interface of this machine (port {})", address.port())
        } else {
            address.to_string()
        };
        eprintln!(
            "{}: listening beyond this machine on {reach} (--allow-remote): whoever reaches it \
             with the token controls your agents, and lf-web speaks plain HTTP, so the token and \
             the sign-in cookies cross the network in clear; use an SSH tunnel to 127.0.0.1 or a \
             VPN (WireGuard, Tailscale) whose path is already encrypted",
            Cli::NAME
        );
    }
    let app = Arc::new(App {
        guard: guard::Guard::new(token, address, &cli.hosts)?,
        changes: live::Changes::follow(home.clone(), caller.clone())?,
        home,
        caller,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // The library's work (SQLite, tmux, git) on a few threads: a
        // machine of a few cores gains nothing from more, and each thread
        // that renders a page keeps its own memory arena.
        .max_blocking_threads(4)
        .enable_all()
        .build()
        .map_err(|source| lf::Error::io("cannot start lf-web's runtime", source))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|source| cannot_listen(address, source))?;
        run(listener, pages::router(app)).await;
        Ok(())
    })
}

/// How long a client may take to send a request's head (hyper starts the
/// timer when it begins to read one, and closes the connection, answering
/// nothing, when it runs out): a client that sends half a request and
/// holds gives its connection back.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once. One more waits in the kernel's queue
/// until one ends (a slow client's, at the latest after
/// [`HEADER_TIMEOUT`]); well below the usual 1,024 open files.
const CONNECTIONS_MAX: usize = 256;

/// Serve connections until Ctrl-C or SIGTERM: each with hyper's HTTP/1
/// and a header-read timeout, at most [`CONNECTIONS_MAX`] at once.
async fn run(listener: tokio::net::TcpListener, router: axum::Router) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let connections = Arc::new(tokio::sync::Semaphore::new(CONNECTIONS_MAX));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut stop = std::pin::pin!(stopped());
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut stop => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of files or memory for a moment, or a connection
                // reset before it was taken: try again shortly.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that went away is no failure of the server's.
            let _ = connection.await;
            drop(permit);
        });
    }
    // Requests under way may finish, briefly: an event stream never does.
    let _ = tokio::time::timeout(Duration::from_secs(2), graceful.shutdown()).await;
}

/// The URL as a QR code drawn with half blocks, two modules a character.
fn qr(url: &str) -> String {
    use qrcode::render::unicode::Dense1x2;
    match qrcode::QrCode::new(url.as_bytes()) {
        Ok(code) => {
            code.render::<Dense1x2>()
                .dark_color(Dense1x2::Light)
                .light_color(Dense1x2::Dark)
                .quiet_zone(true)
                .build()
                + "\n"
        }
        Err(_) => String::new(),
    }
}

/// Ctrl-C or SIGTERM: stop taking requests and end.
async fn stopped() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(term) => term,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

fn cannot_listen(address: SocketAddr, source: std::io::Error) -> lf::Error {
    let why = match source.kind() {
        std::io::ErrorKind::AddrInUse => {
            "another program listens there; choose another port with --listen"
        }
        std::io::ErrorKind::AddrNotAvailable => "no interface of this machine has that address",
        std::io::ErrorKind::PermissionDenied => {
            "ports below 1024 need privileges; choose a port above"
        }
        _ => "check the address given to --listen",
    };
    lf::Error::io(format!("cannot listen on {address}: {why}"), source)
}

/// A refusal of the command line (exit 2), as clap's are.
fn usage(message: String) -> lf::Error {
    lf::error::InputError::CommandLine(message).into()
}
