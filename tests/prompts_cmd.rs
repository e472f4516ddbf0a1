//! The prompt templates as user files: list them, print one, export the built-in ones, and a
//! run that sends the user's edited template (and says so).

use crate::common;
use common::*;

fn prompts(config: &std::path::Path, args: &[&str]) -> std::process::Output {
    bin()
        .env("XDG_CONFIG_HOME", config)
        .arg("prompts")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn export_edit_and_use_a_template() {
    let tiny = Tiny::four();
    let config = tiny.out("config");
    let o = prompts(&config, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(stdout(&o).matches("built in").count(), 11, "{}", stdout(&o));

    let o = prompts(&config, &["--show", "crossover"]);
    assert!(stdout(&o).contains("=== user ==="), "{}", text(&o));
    let o = prompts(&config, &["--show", "crossbreed"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("select_half"),
        "names the steps: {}",
        text(&o)
    );

    let o = prompts(&config, &["--export"]);
    assert!(o.status.success(), "{}", text(&o));
    let dir = config.join("evootter/prompts");
    let crossover = dir.join("crossover.j2");
    let original = std::fs::read_to_string(&crossover).unwrap();
    let edited = original.replace(
        "=== user ===\n",
        "=== user ===\nHOUSE RULE: keep every assertion message.\n",
    );
    assert_ne!(original, edited);
    std::fs::write(&crossover, &edited).unwrap();
    let o = prompts(&config, &["--export"]);
    assert!(
        stdout(&o).contains("kept your"),
        "an edit is never overwritten"
    );
    assert_eq!(std::fs::read_to_string(&crossover).unwrap(), edited);
    let o = prompts(&config, &[]);
    assert!(stdout(&o).contains("yours"), "{}", stdout(&o));
    // The house rule comes before the issue, which every other step's prompt starts with.
    assert!(stdout(&o).contains("no caching"), "{}", stdout(&o));

    // A run sends the edited template, and says it is the user's.
    let child =
        "from calc.ops import clamp\n\n\ndef test_child():\n    assert clamp(15, 0, 10) == 10\n";
    let reply = format!(
        "### test_child_1.py\n```python\n{child}```\n### test_child_2.py\n```python\n# b\n{child}```\n"
    );
    let script = serde_json::json!([
        {"step": "crossover", "match": "HOUSE RULE: keep every assertion message.", "reply": reply},
    ]);
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let o = tiny
        .command("out")
        .env("XDG_CONFIG_HOME", &config)
        .args(["--focal", "calc/ops.py::clamp", "--mutants", "4"])
        .args(["--selection", "random", "--initial-tests"])
        .arg(&tiny.cands)
        .arg("--llm")
        .arg(format!("scripted:{}", script_path.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("prompts/crossover.j2 of yours")
            && text(&o).contains("no shared prefix, no caching"),
        "{}",
        text(&o)
    );

    // A broken edit is reported, naming the file, before any run uses it.
    std::fs::write(&crossover, "{% if %}").unwrap();
    let o = prompts(&config, &[]);
    assert!(!o.status.success());
    assert!(text(&o).contains("crossover.j2"), "{}", text(&o));
}
