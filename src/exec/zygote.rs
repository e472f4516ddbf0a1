//! The zygote's protocol, the same for the local warm executor (over a child's pipes) and the
//! Docker one (over an attached `docker exec`): the program (the Python package in `zygote/`),
//! its ready frame, one request per execution, and the frames of its answer (`L` log, `C`
//! collected, `E` end).

use super::pytest_run::LogBuffer;
use super::types::ExecError;
use std::pin::Pin;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// One file of the package, by its path in `evootter_zygote/`.
macro_rules! package_file {
    ($rel:literal) => {
        (
            concat!("evootter_zygote/", $rel),
            include_str!(concat!("zygote/evootter_zygote/", $rel)),
        )
    };
}

/// The zygote's program, as (path relative to its directory, contents): the package
/// `evootter_zygote` and the launcher that imports it. They go in a directory of their own,
/// which is on the zygote's `sys.path` only while the launcher imports the package, so that
/// nothing of the zygote's can be imported by a test under a generic name.
pub const ZYGOTE_FILES: &[(&str, &str)] = &[
    (
        ZYGOTE_PROGRAM,
        include_str!("zygote/evootter_zygote_main.py"),
    ),
    package_file!("__init__.py"),
    package_file!("linux.py"),
    package_file!("main.py"),
    package_file!("preload.py"),
    package_file!("protocol.py"),
    package_file!("report.py"),
    package_file!("stage.py"),
    package_file!("state.py"),
    package_file!("supervise.py"),
    package_file!("watch.py"),
    package_file!("shortcuts/__init__.py"),
    package_file!("shortcuts/compiled.py"),
    package_file!("shortcuts/config_template.py"),
    package_file!("shortcuts/fixture_scan.py"),
    package_file!("shortcuts/inspect_warmup.py"),
    package_file!("shortcuts/learned_modules.py"),
    package_file!("shortcuts/metadata.py"),
    package_file!("shortcuts/parsers.py"),
    package_file!("shortcuts/patterns.py"),
    package_file!("shortcuts/quick_exit.py"),
    package_file!("shortcuts/rewrites.py"),
    package_file!("shortcuts/statement_ranges.py"),
];

/// The file of `ZYGOTE_FILES` that is started: `python -B <its directory>/evootter_zygote_main.py`.
pub const ZYGOTE_PROGRAM: &str = "evootter_zygote_main.py";

/// How long a zygote may take to import pytest and its plugins and say it is ready.
pub const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// Beyond an execution's own timeout (which the zygote enforces), how long evootter waits for
/// the zygote's answer before it gives up on that zygote.
pub const ANSWER_GRACE: Duration = Duration::from_secs(10);

/// How an execution in the zygote ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    Signaled(i32),
    TimedOut,
}

/// The two ends of a zygote's protocol (`zygote/evootter_zygote/protocol.py`): requests in, frames out. Over a child's
/// pipes locally, over an attached `docker exec` in a container.
pub struct Channel {
    input: Pin<Box<dyn AsyncWrite + Send>>,
    output: BufReader<Pin<Box<dyn AsyncRead + Send>>>,
}

/// A request's answer: its end frame (`E`), the log it streamed, what it collected (`C`).
pub struct Answer {
    pub end: serde_json::Value,
    pub collected: Option<Vec<u8>>,
}

impl Answer {
    /// How the execution ended, from the end frame of a run.
    pub fn ending(&self) -> Ending {
        if self.end["timeout"] == true {
            Ending::TimedOut
        } else if let Some(s) = self.end["signal"].as_i64() {
            Ending::Signaled(s as i32)
        } else {
            Ending::Exited(self.end["exit"].as_i64().unwrap_or(1) as i32)
        }
    }
}

impl Channel {
    pub fn new(
        input: Pin<Box<dyn AsyncWrite + Send>>,
        output: Pin<Box<dyn AsyncRead + Send>>,
    ) -> Self {
        Self {
            input,
            output: BufReader::new(output),
        }
    }

    async fn frame(&mut self) -> std::io::Result<(u8, Vec<u8>)> {
        let mut head = [0u8; 5];
        self.output.read_exact(&mut head).await?;
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut payload = vec![0u8; len];
        self.output.read_exact(&mut payload).await?;
        Ok((head[0], payload))
    }

    /// Waits for the ready frame and checks that the zygote holds none of the copy's modules.
    /// `Err(None)`: it did not get ready (the caller says why, with what it printed).
    pub async fn ready(&mut self) -> Result<(), Result<ExecError, String>> {
        let ready = match tokio::time::timeout(READY_TIMEOUT, self.frame()).await {
            Ok(Ok((b'R', payload))) => payload,
            Ok(Ok((kind, _))) => {
                return Err(Err(format!("it sent frame {:?} first", kind as char)));
            }
            Ok(Err(e)) => return Err(Err(format!("it ended before it was ready ({e})"))),
            Err(_) => return Err(Err("it was not ready within 60 s".to_owned())),
        };
        let ready: serde_json::Value = serde_json::from_slice(&ready)
            .map_err(|e| Ok(ExecError::Other(format!("the zygote's ready frame: {e}"))))?;
        let from_copy: Vec<&str> = ready["from_copy"]
            .as_array()
            .map(|a| a.iter().filter_map(|m| m.as_str()).collect())
            .unwrap_or_default();
        if from_copy.is_empty() {
            return Ok(());
        }
        Err(Ok(ExecError::Other(format!(
            "the warm executor cannot serve this repository: importing pytest and its \
             plugins imports the repository's own {} ({}), which a mutant may change; \
             use --executor cold",
            if from_copy.len() == 1 {
                "module"
            } else {
                "modules"
            },
            from_copy.join(", ")
        ))))
    }

    /// Sends one request (and the bytes it names as its `blob`) and reads its frames until its
    /// end frame, the log into `log`, within `within`. `Err`: the zygote is not to be used
    /// again, and why.
    pub async fn request(
        &mut self,
        req: &serde_json::Value,
        blob: &[u8],
        within: Duration,
        log: &mut LogBuffer,
    ) -> Result<Answer, String> {
        let mut line = serde_json::to_vec(req).map_err(|e| e.to_string())?;
        line.push(b'\n');
        let sent = async {
            self.input.write_all(&line).await?;
            self.input.write_all(blob).await?;
            self.input.flush().await
        };
        sent.await
            .map_err(|e| format!("it took no request ({e})"))?;
        let deadline = tokio::time::Instant::now() + within;
        let mut collected = None;
        loop {
            match tokio::time::timeout_at(deadline, self.frame()).await {
                Ok(Ok((b'L', chunk))) => log.push(&chunk),
                Ok(Ok((b'C', bytes))) => collected = Some(bytes),
                Ok(Ok((b'E', end))) => {
                    let end =
                        serde_json::from_slice(&end).map_err(|e| format!("its end frame: {e}"))?;
                    return Ok(Answer { end, collected });
                }
                Ok(Ok((kind, _))) => return Err(format!("it sent frame {:?}", kind as char)),
                Ok(Err(e)) => return Err(format!("it ended ({e})")),
                Err(_) => return Err("it did not answer".to_owned()),
            }
        }
    }
}

/// The last lines a zygote printed, for an error message.
pub fn tail(said: &str) -> String {
    let last: Vec<&str> = said.lines().rev().take(3).collect();
    if last.is_empty() {
        String::new()
    } else {
        let mut last = last;
        last.reverse();
        format!(": {}", last.join(" | "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module added to the package and left out of `ZYGOTE_FILES` would be missing only
    /// where the zygote runs: every file beside this one is listed, once.
    #[test]
    fn every_file_of_the_program_is_shipped() {
        fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(root, &path, out);
                } else if path.extension().is_some_and(|e| e == "py") {
                    let rel = path.strip_prefix(root).unwrap();
                    out.push(rel.to_string_lossy().into_owned());
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/exec/zygote");
        let mut on_disk = vec![];
        walk(&root, &root, &mut on_disk);
        on_disk.sort();
        let mut shipped: Vec<String> = ZYGOTE_FILES.iter().map(|(p, _)| p.to_string()).collect();
        shipped.sort();
        assert_eq!(shipped, on_disk);
    }
}
