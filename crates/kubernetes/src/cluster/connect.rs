//! Reaching a cluster from a kubeconfig, as kubectl does: the files of
//! `KUBECONFIG` merged (missing ones skipped), else `~/.kube/config`; the
//! named context or the current one; every request bounded in time.

use std::path::PathBuf;
use std::time::Duration;

use ::kube::config::{KubeConfigOptions, Kubeconfig};
use ::kube::{Client, Config};

use super::ClusterError;

/// How long connecting to the server may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one request may take, from sending it to its whole answer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A client for one context of the kubeconfig, and the names messages use.
pub struct Connection {
    /// The client, bounded by [`CONNECT_TIMEOUT`] and [`REQUEST_TIMEOUT`].
    pub client: Client,
    /// The context's name.
    pub context: String,
    /// The server's URL, as the kubeconfig writes it.
    pub server: String,
}

/// The kubeconfig files kubectl reads: those `KUBECONFIG` lists (split as
/// the platform splits paths; empty entries and missing files skipped),
/// or `$HOME/.kube/config` when it lists none.
fn kubeconfig_paths(
    kubeconfig: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Vec<PathBuf> {
    let listed: Vec<PathBuf> = kubeconfig
        .map(|value| {
            std::env::split_paths(&value)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    if listed.is_empty() {
        return home
            .map(|home| PathBuf::from(home).join(".kube").join("config"))
            .into_iter()
            .collect();
    }
    listed
}

/// The kubeconfig files merged, the first to set a value winning (as
/// kubectl merges them).
fn read_kubeconfig(paths: &[PathBuf]) -> Result<Kubeconfig, ClusterError> {
    let existing: Vec<&PathBuf> = paths.iter().filter(|p| p.is_file()).collect();
    if existing.is_empty() {
        return Err(ClusterError::NoKubeconfig {
            looked: paths.iter().map(|p| p.display().to_string()).collect(),
        });
    }
    let mut merged = Kubeconfig::default();
    for path in existing {
        let config = Kubeconfig::read_from(path).map_err(|source| ClusterError::BadKubeconfig {
            path: path.display().to_string(),
            source: Box::new(source),
        })?;
        merged = merged
            .merge(config)
            .map_err(|source| ClusterError::BadKubeconfig {
                path: path.display().to_string(),
                source: Box::new(source),
            })?;
    }
    Ok(merged)
}

/// The context to use: `wanted`, else the kubeconfig's current one; and
/// the URL of its cluster's server (`?` when it names none).
fn choose_context(
    kubeconfig: &Kubeconfig,
    wanted: Option<&str>,
) -> Result<(String, String), ClusterError> {
    let name = match wanted.or(kubeconfig.current_context.as_deref()) {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => return Err(ClusterError::NoCurrentContext),
    };
    let Some(context) = kubeconfig.contexts.iter().find(|c| c.name == name) else {
        return Err(ClusterError::UnknownContext {
            context: name,
            known: kubeconfig.contexts.iter().map(|c| c.name.clone()).collect(),
        });
    };
    let server = context
        .context
        .as_ref()
        .and_then(|c| kubeconfig.clusters.iter().find(|k| k.name == c.cluster))
        .and_then(|k| k.cluster.as_ref())
        .and_then(|k| k.server.clone())
        .unwrap_or_else(|| "?".to_owned());
    Ok((name, server))
}

/// A client for the context `wanted` (or the current one), every request
/// bounded in time. Nothing is sent yet.
pub async fn connect(wanted: Option<&str>) -> Result<Connection, ClusterError> {
    let paths = kubeconfig_paths(std::env::var_os("KUBECONFIG"), std::env::var_os("HOME"));
    let kubeconfig = read_kubeconfig(&paths)?;
    let (context, server) = choose_context(&kubeconfig, wanted)?;
    let options = KubeConfigOptions {
        context: Some(context.clone()),
        ..KubeConfigOptions::default()
    };
    let failed = |source: Box<dyn std::error::Error + Send + Sync>| ClusterError::Unreachable {
        context: context.clone(),
        server: server.clone(),
        source,
    };
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| failed(Box::new(e)))?;
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    config.read_timeout = Some(REQUEST_TIMEOUT);
    config.write_timeout = Some(REQUEST_TIMEOUT);
    config.reset_reader_on_write = true;
    let client = Client::try_from(config).map_err(|e| failed(Box::new(e)))?;
    Ok(Connection {
        client,
        context,
        server,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig(text: &str) -> Kubeconfig {
        Kubeconfig::from_yaml(text).expect("a valid kubeconfig")
    }

    const TWO: &str = "apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: a
  cluster: {server: 'https://127.0.0.1:6443'}
- name: b
  cluster: {server: 'https://prod.example:443'}
contexts:
- name: dev
  context: {cluster: a, user: u}
- name: prod
  context: {cluster: b, user: u}
users:
- name: u
  user: {token: t}
";

    #[test]
    fn the_current_context_unless_one_is_named() {
        let config = kubeconfig(TWO);
        assert_eq!(
            choose_context(&config, None).unwrap(),
            ("dev".to_owned(), "https://127.0.0.1:6443".to_owned())
        );
        assert_eq!(
            choose_context(&config, Some("prod")).unwrap(),
            ("prod".to_owned(), "https://prod.example:443".to_owned())
        );
    }

    #[test]
    fn an_unknown_context_names_the_known_ones() {
        let error = choose_context(&kubeconfig(TWO), Some("staging")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "no context `staging` in the kubeconfig (its contexts: dev, prod)"
        );
    }

    #[test]
    fn kubeconfig_files_merge_as_kubectl_merges_them() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first");
        let second = dir.path().join("second");
        std::fs::write(
            &first,
            "apiVersion: v1\nkind: Config\ncurrent-context: prod\n",
        )
        .unwrap();
        std::fs::write(&second, TWO).unwrap();
        let list = std::env::join_paths([&first, &dir.path().join("missing"), &second]).unwrap();
        let paths = kubeconfig_paths(Some(list), Some("/home/x".into()));
        assert_eq!(paths.len(), 3);
        // A missing file is skipped; the first file to set the current
        // context wins; the contexts come from the second.
        let merged = read_kubeconfig(&paths).unwrap();
        assert_eq!(
            choose_context(&merged, None).unwrap(),
            ("prod".to_owned(), "https://prod.example:443".to_owned())
        );
    }

    #[test]
    fn without_kubeconfig_the_home_file() {
        assert_eq!(
            kubeconfig_paths(None, Some("/home/x".into())),
            [PathBuf::from("/home/x/.kube/config")]
        );
        assert_eq!(
            kubeconfig_paths(Some("".into()), Some("/home/x".into())),
            [PathBuf::from("/home/x/.kube/config")]
        );
        assert!(kubeconfig_paths(None, None).is_empty());
        let error = read_kubeconfig(&[PathBuf::from("/nonexistent/kubeconfig")]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "no kubeconfig: looked at /nonexistent/kubeconfig"
        );
    }

    #[test]
    fn no_current_context_is_an_error() {
        let config = kubeconfig(&TWO.replace("current-context: dev\n", ""));
        let error = choose_context(&config, None).unwrap_err();
        assert!(error.to_string().contains("no current context"), "{error}");
    }
}
