//! `--backend docker`'s options checked and turned into the settings the Docker executor
//! takes (an image per instance, a workdir, limits), without asking any daemon.

use super::error::RequestError;
use super::options::RunOptions;
use crate::engine::DockerSettings;

/// The image a run or a batch row uses: `{id}` in the template stands for the instance id,
/// written as SWE-bench names its images (`__` as `_1776_`, lower case: Docker refuses upper
/// case in repository names).
pub fn image_for(template: &str, id: &str) -> String {
    if !template.contains("{id}") {
        return template.to_string();
    }
    template.replace("{id}", &id.replace("__", "_1776_").to_lowercase())
}

/// `--backend docker`'s options, checked: an image, a workdir that is absolute, limits that
/// parse.
pub fn docker_settings(a: &RunOptions, id: Option<&str>) -> Result<DockerSettings, RequestError> {
    let template = a.image.as_deref().ok_or_else(|| {
        invalid!(
            "--backend docker needs --image NAME: the image the tests run in (evootter never \
             pulls; `docker images` lists what the daemon has)"
        )
    })?;
    let image = match id {
        Some(id) => image_for(template, id),
        None => {
            ensure!(
                !template.contains("{id}"),
                "--image {template} has {{id}}, which stands for an instance id; give --instance \
                 or name the image"
            );
            template.to_string()
        }
    };
    ensure!(
        a.docker_workdir.starts_with('/'),
        "--docker-workdir {} must be an absolute path in the container (e.g. /testbed)",
        a.docker_workdir
    );
    let memory_bytes = match &a.docker_memory {
        Some(s) => Some(parse_size(s).ok_or_else(|| {
            invalid!("--docker-memory {s} is not a size; write e.g. 2g, 512m or 1073741824")
        })?),
        None => None,
    };
    let nano_cpus = match a.docker_cpus {
        Some(c) => {
            ensure!(
                c.is_finite() && c > 0.0,
                "--docker-cpus must be a positive number of cores (got {c})"
            );
            Some((c * 1e9).round() as i64)
        }
        None => None,
    };
    Ok(DockerSettings {
        image,
        hosts: a.docker_hosts.clone(),
        workdir: a.docker_workdir.clone(),
        activate: a.docker_activate.clone(),
        python: a.docker_python.clone(),
        network: a.docker_network,
        memory_bytes,
        nano_cpus,
    })
}

/// `2g`, `512m`, `64k` or a number of bytes. Docker needs at least 6 MiB; smaller is refused
/// by the daemon with its own message.
fn parse_size(s: &str) -> Option<i64> {
    let s = s.trim().to_ascii_lowercase();
    let s = s.strip_suffix('b').unwrap_or(&s);
    let (digits, unit) = match s
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit() && *c != '.')
    {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mult: f64 = match unit {
        "" => 1.0,
        "k" => 1024.0,
        "m" => 1024.0 * 1024.0,
        "g" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let n: f64 = digits.parse().ok()?;
    (n > 0.0).then_some((n * mult) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swebench_image_names() {
        assert_eq!(
            image_for("swebench/sweb.eval.x86_64.{id}", "django__django-11099"),
            "swebench/sweb.eval.x86_64.django_1776_django-11099"
        );
        assert_eq!(
            image_for("sweb.eval.{id}:latest", "Pylons__pyramid-1"),
            "sweb.eval.pylons_1776_pyramid-1:latest"
        );
        assert_eq!(image_for("python:3.11", "x__y"), "python:3.11");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("1.5g"), Some(3 << 29));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("2gb"), Some(2 << 30));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("3t"), None);
        assert_eq!(parse_size("0"), None);
    }
}
