//! `examples/agent.rs` run as a user would: offline, against its own scripted server over HTTP.

mod common;

use std::process::Command;

/// The packing list's progress comes between its call and its result, in order.
#[test]
fn the_agent_example_prints_its_trajectory_and_answer() {
    let example = common::examples::build_example("agent", false);
    let output = Command::new(example)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("the example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<String> = stdout.lines().skip(1).map(without_duration).collect();
    assert_eq!(
        lines,
        [
            "question: I fly to Lisbon tomorrow with 200 USD. What should I pack, and how many \
             euros is that?",
            "step 1",
            "  calls  trip_weather {\"city\":\"Lisbon\"}",
            "  calls  trip_exchange_rate {\"from\":\"USD\",\"to\":\"EUR\"}",
            "  -> trip_weather = \"19 °C, light rain in the afternoon\"",
            "  -> trip_exchange_rate = 0.92",
            "step 2",
            "  calls  trip_convert {\"amount\":200}",
            "  -> trip_convert = \"184.00\"",
            "step 3",
            "  calls  trip_packing_list {\"forecast\":\"19 °C, light rain in the afternoon\"}",
            "  .. trip_packing_list 1/4 checked passport",
            "  .. trip_packing_list 2/4 checked charger",
            "  .. trip_packing_list 3/4 checked umbrella",
            "  .. trip_packing_list 4/4 checked light jacket",
            "  -> trip_packing_list = [\"passport\",\"charger\",\"umbrella\",\"light jacket\"]",
            "step 4",
            "answer: Lisbon tomorrow: 19 °C with light rain in the afternoon, so pack a light \
             jacket and an umbrella. 200 USD is about 184.00 EUR at today's rate of 0.92.",
            "state: {\"rate\":0.92}",
            "tokens: 1221 in, 128 out over 4 steps",
            "typed: Essentials { city: \"Lisbon\", pack: [\"light jacket\", \"umbrella\"], \
             euros: 184.0 }",
            "streamed question: And for Oslo, in one sentence?",
            "  calls  trip_weather",
            "  -> trip_weather = \"-3 °C, clear\"",
            "Oslo tomorrow: -3 °C and clear, so pack a coat.",
            "(2 steps)",
        ]
    );
}

/// The line without its timing (` (123 µs)`), which varies from run to run.
fn without_duration(line: &str) -> String {
    match line.rfind(" (") {
        Some(start) if line.ends_with(" µs)") => line[..start].to_owned(),
        _ => line.to_owned(),
    }
}
