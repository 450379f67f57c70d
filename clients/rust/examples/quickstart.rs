//! Quickstart: two agents on one hub; bob answers alice's ping (docs/clients.md, "Rust").
//!
//! Run against a hub (`kxm hub serve`) with `KXM_ADDR` and `KXM_TOKEN` set, or with the
//! credentials file a hub on this machine wrote: `cargo run --example quickstart`.
//! Prints `answered: pong: ping`.

use std::process::ExitCode;
use std::time::Duration;

use kxm_client::v1::subscribe_response::Event;
use kxm_client::{Client, Error};

/// Bob's loop: acknowledge each request, then reply to it.
async fn answer_requests(bob: Client) -> Result<(), Error> {
    let mut inbox = bob.subscribe(0); // resumes by itself after a dropped stream
    while let Some(event) = inbox.next().await {
        if let Some(Event::Message(message)) = event?.event {
            bob.ack([message.id.as_str()]).await?;
            bob.reply(message.id, format!("pong: {}", message.content)).await?;
        }
    }
    Ok(())
}

/// Alice asks bob `ping` and returns his answer.
async fn run(prefix: &str) -> Result<String, Error> {
    let alice = Client::from_env()?; // address and token from KXM_* or the credentials file
    let bob = Client::from_env()?;
    alice.register(format!("{prefix}-alice")).purpose("asks").await?;
    bob.register(format!("{prefix}-bob")).purpose("answers").await?;
    let answering = tokio::spawn(answer_requests(bob));
    let sent = alice
        .send(format!("{prefix}-bob"), "ping")
        .wait(Duration::from_secs(10)) // the hub waits for the reply
        .await;
    if answering.is_finished() {
        answering.await.expect("bob's loop")?; // bob stopped: say why
    } else {
        answering.abort();
    }
    let reply = sent?.message.and_then(|message| message.reply);
    Ok(reply.map(|reply| reply.content).unwrap_or_default())
}

#[tokio::main]
async fn main() -> ExitCode {
    let prefix = std::env::var("KXM_NAME_PREFIX").unwrap_or_else(|_| "quickstart".to_owned());
    match run(&prefix).await {
        Ok(reply) => {
            println!("answered: {reply}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{} {}: {}", error.code_name(), error.reason(), error.message());
            ExitCode::FAILURE
        }
    }
}
