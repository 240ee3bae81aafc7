//! Rocket server for the course's network experiment (notebook 06_red_http): the fourth server of
//! the original benchmark (its appendix ran Rocket natively, on Rocket's default port 8000). Answers
//! GET / with the same short plain string as the other servers.
//!
//!     servidor-rocket [ADDR]   (default 0.0.0.0:8080; workers: SERVIDOR_HILOS or one per CPU allowed)
//!
//! Rocket's own defaults stay on (its Shield fairing adds a few security headers to every response,
//! as in the original); only the address, the workers, the log and the shutdown grace are set here,
//! from the command line and SERVIDOR_HILOS, never from ROCKET_* variables or a Rocket.toml.

use std::net::SocketAddr;

use rocket::config::{LogLevel, Shutdown};
use rocket::{get, routes, Config};

const BODY: &str = "Hola desde el servidor del curso";

#[get("/")]
fn index() -> &'static str {
    BODY
}

fn main() {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "0.0.0.0:8080".to_string())
        .parse()
        .unwrap_or_else(|err| {
            eprintln!("invalid address: {err}");
            std::process::exit(2)
        });
    let workers = std::env::var("SERVIDOR_HILOS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let config = Config {
        address: addr.ip(),
        port: addr.port(),
        workers,
        log_level: LogLevel::Off,
        cli_colors: false,
        shutdown: Shutdown { grace: 0, mercy: 0, ..Shutdown::default() },
        ..Config::release_default()
    };
    eprintln!("rocket listening on {addr} with {workers} workers");
    let runtime = rocket::tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let result = runtime.block_on(async {
        rocket::custom(config).mount("/", routes![index]).launch().await
    });
    if let Err(err) = result {
        eprintln!("rocket failed: {err}");
        std::process::exit(1);
    }
}
