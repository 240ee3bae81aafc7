//! actix-web server for the course's network experiment (notebook 06_red_http): the fastest
//! native server of the original benchmark. Answers GET / with a short plain string.
//!
//!     servidor-actix [ADDR]   (default 0.0.0.0:8080; workers: SERVIDOR_HILOS or one per CPU allowed)

use actix_web::{get, App, HttpResponse, HttpServer, Responder};

const BODY: &str = "Hola desde el servidor del curso";

#[get("/")]
async fn index() -> impl Responder {
    HttpResponse::Ok().content_type("text/plain; charset=utf-8").body(BODY)
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "0.0.0.0:8080".to_string());
    let workers = std::env::var("SERVIDOR_HILOS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    eprintln!("actix listening on {addr} with {workers} workers");
    HttpServer::new(|| App::new().service(index))
        .workers(workers)
        .bind(addr)?
        .run()
        .await
}
