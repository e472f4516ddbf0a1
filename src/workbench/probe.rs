//! The machine's part of a run request: what only the files, the repository and the
//! interpreter can say about a [`Resolved`] run. The files named exist and read (the
//! repository, the issue, the candidates, the golden patch, a model's script), the output
//! directory can be made, the focal functions yield mutants, which interpreter runs the tests,
//! the repository's python path and test directory, the environment holds `--pass-env`'s
//! variables, and the sources compile. Nothing is written: the session is made only after this.

use super::error::RequestError;
use super::resolve::Resolved;
use crate::engine::setup::{self, SetupError};
use crate::exec;
use crate::outdir::{self, Intent};
use std::path::PathBuf;

/// What the probe found, for [`super::request`] to make the session from.
#[derive(Debug)]
pub struct Probed {
    pub issue_text: String,
    /// The initial tests read (path, text), at most `--tests` of them.
    pub candidates: Vec<(PathBuf, String)>,
    /// The interpreter the tests run with (the local one found, or the image's).
    pub python: String,
    pub pythonpath: Vec<String>,
    pub test_dir: String,
    pub jobs: usize,
    pub pass_env: Vec<String>,
    /// What the session's notes say, in order: the interpreter's, the population's, then
    /// each syntax error.
    pub python_note: Option<String>,
    pub population_note: Option<String>,
    pub syntax: Vec<String>,
}

/// Default parallelism: the machine's cores, or, inside a Slurm job, the CPUs the job was
/// given on this node (`SLURM_CPUS_ON_NODE`): a cluster without CPU binding lets a task see
/// every core, and tasks sharing a node would each start a worker per core.
pub fn default_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let given = std::env::var("SLURM_CPUS_ON_NODE")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0);
    given.map_or(cores, |n| n.min(cores))
}

/// Most executions a run may have at once: pytest runs are CPU-bound, so beyond a few per
/// core they only queue, each holding a working copy and a process tree.
fn max_jobs() -> usize {
    (default_jobs() * 4).max(8)
}

pub(super) fn check_jobs(jobs: usize) -> Result<usize, RequestError> {
    ensure!(
        jobs >= 1,
        "--jobs must be at least 1 (it is how many pytest executions run at once)"
    );
    ensure!(
        jobs <= max_jobs(),
        "--jobs {jobs} is more than this machine can use: it has {} cores, and more than {} \
         executions at once only queue up; pass at most --jobs {}",
        default_jobs(),
        max_jobs(),
        max_jobs()
    );
    Ok(jobs)
}

/// Asks the files, the repository and the interpreter about `r`, or says the first thing that
/// is wrong there.
pub fn probe(r: &Resolved) -> Result<Probed, RequestError> {
    let (repo, cfg) = (&r.repo, &r.config);
    if !repo.is_dir() {
        return Err(SetupError::NoRepo(repo.clone()).into());
    }
    let issue_text = std::fs::read_to_string(&r.issue).map_err(|source| SetupError::Issue {
        path: r.issue.clone(),
        source,
    })?;
    ensure!(
        r.asked.allow_empty_issue || !issue_text.trim().is_empty(),
        "the issue file {} is empty: the issue is what the tests must reproduce (and what the \
         model reads); write it there, or pass --allow-empty-issue to run without one",
        r.issue.display()
    );
    outdir::check(
        &r.out,
        Intent::New {
            force: r.asked.force,
        },
    )?;
    if let Some(spec) = &cfg.llm {
        super::model::check_spec(spec, cfg.llm_reasoning.as_deref())?;
    }
    let jobs = check_jobs(r.asked.jobs.unwrap_or_else(default_jobs))?;
    let candidates = match &r.initial_tests {
        Some(dir) => setup::read_candidates(dir, cfg.tests)?,
        None => vec![],
    };
    // A population that is not what --tests asked for, or a few of many files, is said.
    let population_note = match &r.initial_tests {
        Some(dir) => population_note(cfg.tests, setup::candidate_files(dir)?.len(), &candidates),
        None if cfg.tests == 1 && cfg.method == crate::engine::Method::Evootter => Some(
            "--tests 1: the model writes one test; with one test there is nothing to select, \
             so it is the final test"
                .to_owned(),
        ),
        None => None,
    };
    // The focal functions exist and yield mutants: the Mutate step would find out only after
    // the session (and, with a model, paid calls) exist.
    if !r.focal.is_empty() && cfg.method.mutates() {
        let pool = match &cfg.mutant_kinds {
            None => crate::mutate::generate(repo, &r.focal, cfg.mutants, cfg.seed, cfg.operators)?,
            // Only some kinds: any of them anywhere in the functions will do.
            Some(_) => crate::mutate::generate(
                repo,
                &r.focal,
                crate::mutate::POOL_CAP,
                cfg.seed,
                cfg.operators,
            )?,
        };
        if let Some(kinds) = &cfg.mutant_kinds {
            let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
            ensure!(
                pool.mutants.iter().any(|m| kinds.contains(&m.kind)),
                "--mutant-kinds {}: the focal functions have no site for these kinds; name other \
                 kinds, or more focal functions with --focal",
                names.join(",")
            );
        }
    }
    if let Some(g) = &r.golden_patch {
        ensure!(
            g.is_file(),
            "golden patch {} does not exist; pass the fix as a unified diff with --golden-patch",
            g.display()
        );
        crate::eval::golden_files(repo, g)?;
    }
    let (python, python_note, syntax_python) = match &cfg.docker {
        None => {
            let pyenv = exec::resolve_python(r.asked.python.as_deref())?;
            let path = pyenv.path.clone();
            (pyenv.path.display().to_string(), pyenv.note, Some(path))
        }
        // The syntax check is a courtesy: it needs a local python3, which a Docker run does
        // not otherwise need.
        Some(d) => (
            d.python.clone(),
            None,
            exec::python_env::locate_on_path("python3"),
        ),
    };
    let pythonpath = r
        .asked
        .pythonpath
        .clone()
        .unwrap_or_else(|| setup::default_pythonpath(repo));
    for dir in &pythonpath {
        ensure!(
            repo.join(dir).is_dir(),
            "--pythonpath {dir} is not a directory of {}; give directories relative to the \
             repository root",
            repo.display()
        );
    }
    let test_dir = r
        .asked
        .test_dir
        .clone()
        .unwrap_or_else(|| setup::default_test_dir(repo));
    let pass_env = check_pass_env_set(&r.asked.pass_env, |name| std::env::var_os(name).is_some())?;
    // Syntax, by the run's own interpreter: a focal file that does not compile makes every
    // execution fail; a candidate that does not may still be worth running, but the user is
    // told.
    let syntax = match &syntax_python {
        Some(py) => syntax_errors(py, r, &candidates)?,
        None => vec![],
    };
    Ok(Probed {
        issue_text,
        candidates,
        python,
        pythonpath,
        test_dir,
        jobs,
        pass_env,
        python_note,
        population_note,
        syntax,
    })
}

/// The syntax errors of the focal files and the candidates, as the session's notes word them.
fn syntax_errors(
    python: &std::path::Path,
    r: &Resolved,
    candidates: &[(PathBuf, String)],
) -> Result<Vec<String>, RequestError> {
    let mut sources = vec![];
    for f in &r.focal {
        if let Ok(text) = std::fs::read_to_string(r.repo.join(&f.file))
            && !sources.iter().any(|(l, _): &(String, String)| *l == f.file)
        {
            sources.push((f.file.clone(), text));
        }
    }
    for (path, text) in candidates {
        sources.push((path.display().to_string(), text.clone()));
    }
    let lines = exec::python_env::syntax_errors(python, &sources)?;
    Ok(lines
        .into_iter()
        .map(|line| {
            let focal_file = r
                .focal
                .iter()
                .any(|f| line.starts_with(&format!("{}:", f.file)));
            if focal_file {
                format!(
                    "syntax error in the focal file {line}: every test will fail to import it \
                     on c_old and on its mutants"
                )
            } else {
                format!("syntax error in the candidate {line}: it will run, and fail to collect")
            }
        })
        .collect())
}

/// `--pass-env`'s names (well formed, checked by the resolve), each set in this environment
/// (a name that is not set is a typo more often than a wish), each once.
fn check_pass_env_set(
    names: &[String],
    is_set: impl Fn(&str) -> bool,
) -> Result<Vec<String>, RequestError> {
    let mut out: Vec<String> = vec![];
    for name in names {
        ensure!(
            is_set(name),
            "--pass-env {name}: {name} is not set in this environment; set it (export \
             {name}=...) or drop the flag"
        );
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
    Ok(out)
}

/// What `--tests N` made of `available` initial test files: fewer than asked (all of them
/// run), or the first N in name order (named); with one, nothing is left to select.
fn population_note(n: usize, available: usize, taken: &[(PathBuf, String)]) -> Option<String> {
    let names = || {
        taken
            .iter()
            .filter_map(|(p, _)| p.file_name())
            .map(|f| f.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if available < n {
        Some(format!(
            "--tests {n}: the initial tests hold {available}, so the population is {available}"
        ))
    } else if n == 1 && available > 1 {
        Some(format!(
            "--tests 1: the first of the {available} initial tests in name order ({}) is the \
             population; with one test there is nothing to select, so it is the final test",
            names()
        ))
    } else if n < available {
        Some(format!(
            "--tests {n}: the first {n} of the {available} initial tests in name order: {}",
            names()
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--tests N` that is not the number of initial tests is said, with what was taken.
    #[test]
    fn a_population_other_than_asked_is_said() {
        let taken = |names: &[&str]| -> Vec<(PathBuf, String)> {
            names
                .iter()
                .map(|n| (PathBuf::from("/c").join(n), String::new()))
                .collect()
        };
        let all = taken(&["a.py", "b.py", "c.py"]);
        assert_eq!(
            population_note(8, 3, &all).unwrap(),
            "--tests 8: the initial tests hold 3, so the population is 3"
        );
        assert_eq!(population_note(3, 3, &all), None);
        let one = population_note(1, 3, &taken(&["a.py"])).unwrap();
        assert!(
            one.contains("(a.py)") && one.contains("it is the final test"),
            "{one}"
        );
        let two = population_note(2, 3, &taken(&["a.py", "b.py"])).unwrap();
        assert!(two.ends_with("in name order: a.py, b.py"), "{two}");
    }

    #[test]
    fn pass_env_names_must_be_set() {
        let set = |n: &str| n != "UNSET_VAR";
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            check_pass_env_set(&names(&["DATABASE_URL", "X_1", "DATABASE_URL"]), set).unwrap(),
            names(&["DATABASE_URL", "X_1"])
        );
        let e = check_pass_env_set(&names(&["UNSET_VAR"]), set)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not set in this environment"), "{e}");
    }
}
