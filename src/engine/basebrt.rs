//! BaseBRT (paper III-B, Fig. 3), the steps before evolution when the user gives no focal
//! functions or no initial tests: the localizer (files, then functions, then a refinement
//! with bodies), the contextualizer (imports, then where the test goes), and single-prompting
//! generation of the initial population (paper IV-D: n tests in one call).
//! Everything the model proposes is checked against the repository before it is used.

use super::config::Prompting;
use super::events::Event;
use super::machine::{Engine, EngineError};
use super::session::{BaseBrt, Origin, Phase, Variant};
use crate::prompts::{
    PromptKind, parse_focal, parse_imports, parse_paths, parse_single_path, parse_tests,
};
use crate::python::{FocalFunction, is_test_file, python_files};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// Paper III-B: the localizer asks for the 50 most relevant files.
const MAX_FILES: usize = 50;
/// Bodies shown in prompts are cut to this many characters each.
const MAX_BODY_CHARS: usize = 4000;

/// Top-level import statements of `source` (one logical line each).
fn imports_of(source: &str) -> Vec<String> {
    source
        .lines()
        .filter(|l| l.starts_with("import ") || l.starts_with("from "))
        .filter(|l| !l.trim_end().ends_with('(') && !l.trim_end().ends_with('\\'))
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// Heterogeneous prompting's i-th variant: the issue morph (`None`: the original) and which
/// parts of the context are masked. Cycles through the paper's five morphs, and masks the
/// imports on every second variant and the function bodies on every fourth.
fn variant(i: usize) -> (Option<&'static str>, bool, bool) {
    const STYLES: [Option<&str>; 6] = [
        None,
        Some("standard"),
        Some("simple"),
        Some("dropCode"),
        Some("initTest"),
        Some("initPatch"),
    ];
    (STYLES[i % STYLES.len()], i % 2 == 1, i % 4 == 3)
}

/// What the localizer found for one issue: the files it kept, the functions it named, and the
/// focal functions after refinement.
struct Localized {
    files: Vec<String>,
    named: Vec<FocalFunction>,
    focal: Vec<FocalFunction>,
}

impl Engine {
    /// The issue rewritten in `style`, asked once per session.
    async fn morph(&mut self, style: &str) -> Result<String, EngineError> {
        if let Some(m) = self.doc.base_brt.as_ref().and_then(|b| b.morphs.get(style)) {
            return Ok(m.clone());
        }
        let ctx = json!({"issue": self.doc.inputs.issue_text, "style": style});
        let reply = self.ask("morph_issue", PromptKind::MorphIssue, ctx).await?;
        let text = reply.trim().to_string();
        let text = if text.is_empty() {
            self.note(format!(
                "morph_issue: empty {style} rewrite; using the original issue"
            ));
            self.doc.inputs.issue_text.clone()
        } else {
            text
        };
        self.doc
            .base_brt
            .get_or_insert_with(BaseBrt::default)
            .morphs
            .insert(style.to_string(), text.clone());
        Ok(text)
    }

    fn read_repo(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.doc.inputs.repo.join(rel)).ok()
    }

    /// `{file, qualname, body}` for each focal function that can be found.
    fn bodies(&self, focal: &[FocalFunction]) -> Vec<serde_json::Value> {
        focal
            .iter()
            .filter_map(|f| {
                let src = self.read_repo(&f.file)?;
                let site = crate::python::locate(&src, &f.qualname).ok()?;
                let body: String = src[site.start_byte..site.end_byte]
                    .chars()
                    .take(MAX_BODY_CHARS)
                    .collect();
                Some(json!({"file": f.file, "qualname": f.qualname, "body": body}))
            })
            .collect()
    }

    /// A BaseBRT step got nothing it can use from the model: there is no fallback, so the run
    /// stops. The reply is dropped from the response cache so that `--resume` asks again.
    async fn no_use(&mut self, step: &str, what: &str) -> EngineError {
        if let (Some(model), Some(req)) = (self.model.clone(), self.last_request.take()) {
            model.forget(&req).await;
        }
        EngineError::Llm {
            step: step.into(),
            detail: format!(
                "the model's reply named no {what} that exists in the repository; see the \
                 recorded call in session.json (llm_calls), adjust the prompt or the model, \
                 and --resume"
            ),
        }
    }

    /// Localizer: three calls, files -> functions -> refined focal functions.
    pub(super) async fn step_localize(&mut self) -> Result<(), EngineError> {
        let issue = self.doc.inputs.issue_text.clone();
        let found = match self.localize(&issue).await? {
            Ok(f) => f,
            Err((step, what)) => return Err(self.no_use(step, what).await),
        };
        self.emit(Event::Localized {
            files: found.files.clone(),
            focal: found.focal.iter().map(|f| f.to_string()).collect(),
        });
        let brt = self.doc.base_brt.get_or_insert_with(BaseBrt::default);
        brt.files = found.files;
        brt.functions = found.named.iter().map(|f| f.to_string()).collect();
        self.doc.inputs.focal = found.focal;
        self.doc.phase = self.after_localize();
        Ok(())
    }

    /// The localizer's three calls for `issue`: what it found, checked against the
    /// repository; `Err((step, what))` inside when a reply named nothing that exists.
    async fn localize(
        &mut self,
        issue: &str,
    ) -> Result<Result<Localized, (&'static str, &'static str)>, EngineError> {
        let all = python_files(&self.doc.inputs.repo);
        let known: BTreeSet<&str> = all.iter().map(String::as_str).collect();

        let ctx = json!({"issue": issue, "files": all, "max_files": MAX_FILES});
        let reply = self
            .ask("localize_files", PromptKind::LocalizeFiles, ctx)
            .await?;
        let files: Vec<String> = parse_paths(&reply)
            .into_iter()
            .filter(|p| known.contains(p.as_str()))
            .take(MAX_FILES)
            .collect();
        if files.is_empty() {
            return Ok(Err(("localize_files", "Python file")));
        }

        let mut defined: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for f in &files {
            if let Some(src) = self.read_repo(f) {
                defined.insert(f.clone(), crate::python::list_functions(&src));
            }
        }
        let listing: Vec<_> = defined
            .iter()
            .map(|(path, functions)| json!({"path": path, "functions": functions}))
            .collect();
        let ctx = json!({"issue": issue, "files": listing});
        let reply = self
            .ask("localize_functions", PromptKind::LocalizeFunctions, ctx)
            .await?;
        let valid = |names: Vec<String>| -> Vec<FocalFunction> {
            let mut out: Vec<FocalFunction> = Vec::new();
            for n in names {
                if let Ok(f) = n.parse::<FocalFunction>()
                    && defined
                        .get(&f.file)
                        .is_some_and(|fs| fs.contains(&f.qualname))
                    && !out.contains(&f)
                {
                    out.push(f);
                }
            }
            out
        };
        let candidates = valid(parse_focal(&reply));
        if candidates.is_empty() {
            return Ok(Err(("localize_functions", "function")));
        }

        let ctx = json!({"issue": issue, "functions": self.bodies(&candidates)});
        let reply = self
            .ask("localize_refine", PromptKind::LocalizeRefine, ctx)
            .await?;
        let refined: Vec<FocalFunction> = valid(parse_focal(&reply))
            .into_iter()
            .filter(|f| candidates.contains(f))
            .collect();
        let focal = if refined.is_empty() {
            self.note(
                "localize_refine: the model kept none of the functions; using all it named before"
                    .into(),
            );
            candidates.clone()
        } else {
            refined
        };
        Ok(Ok(Localized {
            files,
            named: candidates,
            focal,
        }))
    }

    fn after_localize(&self) -> Phase {
        if self.doc.initial_population.is_empty() {
            Phase::Contextualize
        } else {
            Phase::Mutate
        }
    }

    /// Contextualizer: two calls, the relevant imports and the test's location.
    pub(super) async fn step_contextualize(&mut self) -> Result<(), EngineError> {
        let issue = self.doc.inputs.issue_text.clone();
        let focal = self.doc.inputs.focal.clone();
        let files: Vec<String> = match &self.doc.base_brt {
            Some(b) if !b.files.is_empty() => b.files.clone(),
            _ => focal.iter().map(|f| f.file.clone()).collect(),
        };
        let (chosen, location) = self.contextualize(&issue, &focal, &files).await?;
        // New tests, and the offspring of crossover, go where the contextualizer said.
        if let Some((dir, _)) = location.rsplit_once('/') {
            self.doc.config.test_dir = dir.to_string();
        } else {
            self.doc.config.test_dir = ".".into();
        }
        self.emit(Event::Contextualized {
            imports: chosen.clone(),
            test_location: location.clone(),
        });
        let brt = self.doc.base_brt.get_or_insert_with(BaseBrt::default);
        brt.imports = chosen;
        brt.test_location = Some(location);
        self.doc.phase = Phase::Generate;
        Ok(())
    }

    /// The contextualizer's two calls for `issue`, the `focal` functions and the localized
    /// `files`: the imports it chose and where the test goes.
    async fn contextualize(
        &mut self,
        issue: &str,
        focal: &[FocalFunction],
        files: &[String],
    ) -> Result<(Vec<String>, String), EngineError> {
        let mut imports: Vec<String> = Vec::new();
        for f in files {
            for i in self
                .read_repo(f)
                .map(|s| imports_of(&s))
                .unwrap_or_default()
            {
                if !imports.contains(&i) {
                    imports.push(i);
                }
            }
        }
        let ctx = json!({"issue": issue, "functions": self.bodies(focal), "imports": imports});
        let reply = self
            .ask("context_imports", PromptKind::ContextImports, ctx)
            .await?;
        let chosen = parse_imports(&reply);

        let all = python_files(&self.doc.inputs.repo);
        let mut locations: Vec<String> = all.iter().filter(|p| is_test_file(p)).cloned().collect();
        let dirs: BTreeSet<String> = locations
            .iter()
            .filter_map(|p| p.rsplit_once('/').map(|(d, _)| format!("{d}/")))
            .collect();
        locations.extend(dirs);
        let components: Vec<String> = focal.iter().map(|f| f.to_string()).collect();
        let ctx = json!({"issue": issue, "imports": chosen, "locations": locations,
                         "components": components});
        let reply = self
            .ask("context_location", PromptKind::ContextLocation, ctx)
            .await?;
        let location = match parse_single_path(&reply) {
            Ok(p) if !p.starts_with('/') && !p.split('/').any(|c| c == "..") => p,
            _ => {
                let fallback = format!(
                    "{}/test_issue_reproduction.py",
                    self.doc.config.test_dir.trim_end_matches('/')
                );
                self.note(format!(
                    "context_location: no usable test path in the model's reply; using {fallback}"
                ));
                fallback
            }
        };
        Ok((chosen, location))
    }

    /// Heterogeneous prompting's variant `i` of `n` (paper III-B): its morphed issue and, as
    /// published, its own localization and contextualization with it (those the run asked of
    /// the model; the original issue's variant has the run's own), then one call for its test
    /// with its context mask. A variant whose localization names nothing that exists uses the
    /// run's, and says so.
    async fn variant_test(
        &mut self,
        i: usize,
        n: usize,
        published: bool,
        functions: &[serde_json::Value],
        test_path: &str,
    ) -> Result<(Option<crate::prompts::ParsedTest>, Variant), EngineError> {
        let (style, mask_imports, mask_functions) = variant(i);
        let issue = match style {
            None => self.doc.inputs.issue_text.clone(),
            Some(style) => self.morph(style).await?,
        };
        let brt = self.doc.base_brt.clone().unwrap_or_default();
        let mut v = Variant {
            index: i + 1,
            morph: style.map(str::to_string),
            imports_masked: mask_imports,
            functions_masked: mask_functions,
            ..Default::default()
        };
        let localized = !brt.files.is_empty();
        let mut focal = self.doc.inputs.focal.clone();
        let mut files = brt.files.clone();
        if published && style.is_some() && localized {
            match self.localize(&issue).await? {
                Ok(found) => {
                    focal = found.focal;
                    files = found.files;
                }
                Err((step, what)) => self.note(format!(
                    "generate: variant {} ({step}) named no {what} that exists; it uses the \
                     original issue's localization",
                    i + 1
                )),
            }
        }
        let (functions, imports) = if published && style.is_some() {
            if files.is_empty() {
                files = focal.iter().map(|f| f.file.clone()).collect();
            }
            let (imports, location) = self.contextualize(&issue, &focal, &files).await?;
            v.imports = imports.clone();
            v.test_location = Some(location);
            (self.bodies(&focal), imports)
        } else {
            v.imports = brt.imports.clone();
            v.test_location = brt.test_location.clone();
            (functions.to_vec(), brt.imports.clone())
        };
        if localized {
            v.focal = focal.iter().map(|f| f.to_string()).collect();
        }
        let ctx = json!({
            "issue": issue,
            "functions": if mask_functions { json!([]) } else { json!(functions) },
            "imports": if mask_imports { json!([]) } else { json!(imports) },
            "test_path": test_path,
        });
        let reply = self.ask("generate", PromptKind::GenerateOne, ctx).await?;
        let parsed = parse_tests(&reply, 1);
        let test = parsed.tests.into_iter().next();
        if test.is_none() {
            self.note(format!(
                "generate: call {} of {n} gave no usable test ({})",
                i + 1,
                parsed.problems.join("; ")
            ));
        }
        Ok((test, v))
    }

    /// The initial population: single prompting (paper IV-D, n tests in one call) or
    /// heterogeneous prompting (paper III-B, one test per call from a morphed issue and a
    /// masked context).
    pub(super) async fn step_generate(&mut self) -> Result<(), EngineError> {
        let n = self.doc.config.tests;
        let brt = self.doc.base_brt.clone().unwrap_or_default();
        let test_path = brt
            .test_location
            .clone()
            .unwrap_or_else(|| format!("{}/test_issue_reproduction.py", self.doc.config.test_dir));
        let functions = self.bodies(&self.doc.inputs.focal);
        let mut tests = Vec::new();
        // Heterogeneous prompting: each test's variant, in order (a variant whose reply held
        // no test has none).
        let mut variants: Vec<Variant> = Vec::new();
        let mut writers: Vec<usize> = Vec::new();
        match self.doc.config.prompting {
            Prompting::Single => {
                let ctx = json!({
                    "issue": self.doc.inputs.issue_text,
                    "functions": functions,
                    "imports": brt.imports,
                    "test_path": test_path,
                    "n": n,
                });
                let reply = self.ask("generate", PromptKind::GenerateMany, ctx).await?;
                let parsed = parse_tests(&reply, n);
                for p in &parsed.problems {
                    self.note(format!("generate: {p}"));
                }
                tests = parsed.tests;
            }
            Prompting::Heterogeneous | Prompting::HeterogeneousGenerate => {
                let published = self.doc.config.prompting == Prompting::Heterogeneous;
                for i in 0..n {
                    let (t, v) = self
                        .variant_test(i, n, published, &functions, &test_path)
                        .await?;
                    if let Some(t) = t {
                        writers.push(variants.len());
                        tests.push(t);
                    }
                    variants.push(v);
                }
            }
        }
        if tests.is_empty() {
            return Err(self.no_use("generate", "usable test").await);
        }
        let prompting = self.doc.config.prompting.to_string();
        for (i, t) in tests.into_iter().enumerate() {
            // Which variant wrote it, where there are variants.
            let prompting = match writers.get(i).map(|k| &variants[*k]) {
                Some(v) => format!("{prompting}, {}", v.words()),
                None => prompting.clone(),
            };
            let origin = Origin::Generated { prompting };
            let id = self.add_test(t, &format!("test_candidate_{}.py", i + 1), origin);
            if let Some(k) = writers.get(i) {
                variants[*k].test = Some(id.clone());
            }
            self.doc.initial_population.push(id);
        }
        if !variants.is_empty() {
            self.doc
                .base_brt
                .get_or_insert_with(BaseBrt::default)
                .variants = variants;
        }
        let population = self.doc.initial_population.clone();
        self.emit_written(None, &population, &[]);
        self.doc.phase = Phase::Mutate;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_imports() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("pkg/__pycache__")).unwrap();
        std::fs::create_dir_all(d.path().join("tests")).unwrap();
        std::fs::write(
            d.path().join("pkg/a.py"),
            "import os\nfrom x import (\n    y,\n)\nfrom z import w\n",
        )
        .unwrap();
        std::fs::write(d.path().join("pkg/__pycache__/a.py"), "").unwrap();
        std::fs::write(d.path().join("tests/test_a.py"), "").unwrap();
        std::fs::write(d.path().join("README.md"), "").unwrap();
        assert_eq!(python_files(d.path()), vec!["pkg/a.py", "tests/test_a.py"]);
        let src = std::fs::read_to_string(d.path().join("pkg/a.py")).unwrap();
        assert_eq!(imports_of(&src), vec!["import os", "from z import w"]);
        assert!(is_test_file("tests/test_a.py") && !is_test_file("pkg/a.py"));
    }
}
