//! From a rendered workload to a local process: its environment, arguments, working folder and
//! mounted files.
//!
//! The environment is the container's `envFrom` and `env` exactly as Kubernetes would build it
//! (later sources win, `env` over `envFrom`), with values taken from the rendered ConfigMaps,
//! Secrets produced by [`crate::secrets`], and the downward API. Then only what differs on
//! one machine is rewritten:
//! - URLs whose host is a Service of the overlay → `127.0.0.1:<the Service's local port>`, where a
//!   [`crate::service_proxy::ServiceProxy`] forwards to the ready process behind it
//!   (the scheme stays: `https` where the manifests turn internal TLS on, with the local CA's
//!   certificates in the `miclub-<service>-tls` Secrets' place);
//! - values equal to one of the container's ports → the port the process listens on here, and
//!   `0.0.0.0` → `127.0.0.1`;
//! - paths under a mount → the file made for it in the process's working folder;
//! - the external endpoints of [`EXTERNAL`] (the portal's public URL, the SMTP relay, the
//!   collector) → their local stand-ins.
//!
//! [`LocalAdditions`] are the few settings the cluster leaves to defaults that cannot hold on
//! one machine (the mail catcher's port and CA, the reCAPTCHA stand-in's URL, loopback listen
//! hosts). Anything the tool cannot produce is a [`PlanError`] naming the variable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::manifests::{Container, Rendered, Workload};
use crate::pki::Pki;
use crate::secrets::{self, Produce, Vault};

/// A manifest asks for something this tool cannot give.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{workload}: cannot produce {variable}: {reason}")]
    Unproducible {
        workload: String,
        variable: String,
        reason: String,
    },
    #[error("{workload}: {reason}")]
    Workload { workload: String, reason: String },
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// How an external endpoint of the manifests is replaced here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum External {
    /// The portal's public base URL → the gateway's local URL.
    PortalUrl,
    /// The portal's public host name → `127.0.0.1`.
    PortalHost,
    /// The SMTP relay → the mail catcher.
    MailHost,
    /// The OTLP collector → the one the options give, or none (the variable is left out).
    Collector,
    /// Kept as the manifest says: not called in the dev overlay (the identity verifier: kind
    /// `rules`).
    Unused,
}

/// Variable → how its external endpoint is replaced.
pub const EXTERNAL: &[(&str, External)] = &[
    ("APP_ACCOUNTS__PUBLIC_URL", External::PortalUrl),
    ("APP_GATEWAY__RECAPTCHA__HOSTNAME", External::PortalHost),
    ("APP_NOTIFIER__SMTP_HOST", External::MailHost),
    ("OTEL_EXPORTER_OTLP_ENDPOINT", External::Collector),
    ("APP_REGISTRATION__VERIFIER__ENDPOINT", External::Unused),
];

/// The local facts a plan is made from.
#[derive(Debug)]
pub struct Local<'a> {
    pub rendered: &'a Rendered,
    /// (workload, container port) → the port it listens on here.
    pub ports: &'a BTreeMap<(String, u16), u16>,
    /// (Service, Service port) → the port its proxy listens on here.
    pub service_ports: &'a BTreeMap<(String, u16), u16>,
    /// Service → the PostgreSQL URL of its own database and role.
    pub databases: &'a BTreeMap<String, String>,
    pub redis_url: &'a str,
    pub pki: &'a Pki,
    pub mail: &'a MailEndpoint,
    /// `http://127.0.0.1:<gateway port>`.
    pub portal_url: &'a str,
    pub recaptcha_verify_url: &'a str,
    pub otlp_endpoint: Option<&'a str>,
    /// A prefix for every Redis key and stream (tests sharing one Redis).
    pub redis_key_prefix: Option<&'a str>,
    /// Where each process's working folder (its `/app`) is made.
    pub app_root: &'a Path,
}

/// The mail catcher as senders reach it.
#[derive(Debug, Clone)]
pub struct MailEndpoint {
    pub host: String,
    pub smtp_port: u16,
    pub username: String,
    pub password: String,
}

/// One process to run.
#[derive(Debug, Clone)]
pub struct ProcessPlan {
    /// The workload (or Job) it comes from.
    pub name: String,
    pub binary: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// Its `/app`: the image's WORKDIR, holding `config/` and the mounted files.
    pub workdir: PathBuf,
    /// Files to write before it starts (mounted ConfigMaps and Secrets).
    pub files: Vec<(PathBuf, String)>,
    /// The workloads whose Services its environment names: they start first.
    pub depends_on: std::collections::BTreeSet<String>,
}

/// Where a value of the manifest comes from, before rewriting.
enum Source {
    Literal(String),
    Secret { name: String, key: String },
}

/// The image's working folder; mount paths under it land in the local working folder.
const IMAGE_WORKDIR: &str = "/app";

impl Local<'_> {
    /// The process for `workload` (a Deployment, StatefulSet or Job).
    pub fn plan(&self, workload: &Workload, vault: &mut Vault) -> Result<ProcessPlan, PlanError> {
        let container = workload.container().map_err(PlanError::Other)?;
        let workdir = self.app_root.join(&workload.name);
        let fail = |variable: &str, reason: String| PlanError::Unproducible {
            workload: workload.name.clone(),
            variable: variable.to_owned(),
            reason,
        };
        let (files, mounts) = self.mounts(workload, container, &workdir, vault)?;

        let mut sources: BTreeMap<String, Source> = BTreeMap::new();
        for from in &container.env_from {
            let prefix = from.prefix.clone().unwrap_or_default();
            if let Some(map) = &from.config_map_ref {
                match self.rendered.config_maps.get(&map.name) {
                    Some(data) => {
                        for (key, value) in data {
                            sources
                                .insert(format!("{prefix}{key}"), Source::Literal(value.clone()));
                        }
                    }
                    None if map.optional => {}
                    None => {
                        return Err(fail(
                            &format!("envFrom configMapRef {}", map.name),
                            "no such ConfigMap in the rendered overlay".into(),
                        ));
                    }
                }
            }
            if let Some(secret) = &from.secret_ref {
                return Err(fail(
                    &format!("envFrom secretRef {}", secret.name),
                    "a whole Secret's keys are unknown here; reference each key with secretKeyRef"
                        .into(),
                ));
            }
        }
        for var in &container.env {
            let source = match (&var.value, &var.value_from) {
                (Some(value), _) => Source::Literal(value.clone()),
                (None, None) => Source::Literal(String::new()),
                (None, Some(from)) => {
                    if let Some(key_ref) = &from.config_map_key_ref {
                        match self
                            .rendered
                            .config_maps
                            .get(&key_ref.name)
                            .and_then(|data| data.get(&key_ref.key))
                        {
                            Some(value) => Source::Literal(value.clone()),
                            None if key_ref.optional => continue,
                            None => {
                                return Err(fail(
                                    &var.name,
                                    format!("no key {} in ConfigMap {}", key_ref.key, key_ref.name),
                                ));
                            }
                        }
                    } else if let Some(key_ref) = &from.secret_key_ref {
                        if secrets::produce(&key_ref.key).is_none() && key_ref.optional {
                            continue;
                        }
                        Source::Secret {
                            name: key_ref.name.clone(),
                            key: key_ref.key.clone(),
                        }
                    } else if let Some(field) = &from.field_ref {
                        match field.field_path.as_str() {
                            "metadata.name" => Source::Literal(workload.pod_name()),
                            "metadata.namespace" => Source::Literal("local".into()),
                            other => {
                                return Err(fail(
                                    &var.name,
                                    format!("field {other} of the downward api"),
                                ));
                            }
                        }
                    } else if let Some(resource) = &from.resource_field_ref {
                        Source::Literal(
                            resource_value(
                                container,
                                &resource.resource,
                                resource.divisor.as_deref(),
                            )
                            .ok_or_else(|| {
                                fail(
                                    &var.name,
                                    format!(
                                        "resource {} is not set on the container",
                                        resource.resource
                                    ),
                                )
                            })?,
                        )
                    } else {
                        return Err(fail(&var.name, "an unknown valueFrom".into()));
                    }
                }
            };
            sources.insert(var.name.clone(), source);
        }

        let mut env = BTreeMap::new();
        let mut rewritten_ports = Vec::new();
        let mut depends_on = std::collections::BTreeSet::new();
        for (name, source) in sources {
            let value = match source {
                Source::Secret { name: secret, key } => self
                    .secret(workload, container, &secret, &key, vault)
                    .map_err(|reason| fail(&name, reason))?,
                Source::Literal(value) => {
                    match self
                        .rewrite(&workload.name, container, &name, &value, &mounts)
                        .map_err(|reason| fail(&name, reason))?
                    {
                        Rewritten::Keep => value,
                        Rewritten::Drop => continue,
                        Rewritten::Port(port) => {
                            rewritten_ports.push(name.clone());
                            port.to_string()
                        }
                        Rewritten::Value(value) => value,
                        Rewritten::Service { value, backend } => {
                            depends_on.insert(backend);
                            value
                        }
                    }
                }
            };
            env.insert(name, value);
        }
        self.add_local_settings(&mut env, &rewritten_ports);

        Ok(ProcessPlan {
            name: workload.name.clone(),
            binary: container.binary().to_owned(),
            args: container.args.clone(),
            env,
            workdir,
            files,
            depends_on,
        })
    }

    /// A literal value as it must read here.
    fn rewrite(
        &self,
        workload: &str,
        container: &Container,
        name: &str,
        value: &str,
        mounts: &[(String, PathBuf)],
    ) -> Result<Rewritten, String> {
        if let Some((_, external)) = EXTERNAL.iter().find(|(var, _)| *var == name) {
            return Ok(match external {
                External::PortalUrl => Rewritten::Value(self.portal_url.to_owned()),
                External::PortalHost => Rewritten::Value("127.0.0.1".into()),
                External::MailHost => Rewritten::Value(self.mail.host.clone()),
                External::Collector => match self.otlp_endpoint {
                    Some(endpoint) => Rewritten::Value(endpoint.to_owned()),
                    None => Rewritten::Drop,
                },
                External::Unused => Rewritten::Keep,
            });
        }
        if value.contains("://") {
            return self
                .rewrite_url(value)
                .map(|(value, backend)| Rewritten::Service { value, backend });
        }
        if value == "0.0.0.0" {
            return Ok(Rewritten::Value("127.0.0.1".into()));
        }
        if let Ok(number) = value.parse::<u16>()
            && container.ports.iter().any(|p| p.container_port == number)
        {
            let port = self
                .ports
                .get(&(workload.to_owned(), number))
                .copied()
                .ok_or_else(|| format!("no local port for container port {number}"))?;
            return Ok(Rewritten::Port(port));
        }
        for (mount_path, local) in mounts {
            if let Some(rest) = value.strip_prefix(mount_path.as_str()) {
                let rest = rest.trim_start_matches('/');
                let path = if rest.is_empty() {
                    local.clone()
                } else {
                    local.join(rest)
                };
                return Ok(Rewritten::Value(path.display().to_string()));
            }
        }
        Ok(Rewritten::Keep)
    }

    /// A URL whose host is a Service of the overlay, pointed at its local backend.
    fn rewrite_url(&self, value: &str) -> Result<(String, String), String> {
        let mut url = url::Url::parse(value).map_err(|e| format!("not a url ({e})"))?;
        let host = url.host_str().unwrap_or_default().to_owned();
        let service = cluster_service_name(&host);
        let port = url
            .port_or_known_default()
            .ok_or_else(|| format!("{value} names no port"))?;
        let (backend, _) = self.rendered.backend(service, port).ok_or_else(|| {
            format!("host {host} is neither a Service of the overlay nor a known external endpoint")
        })?;
        let local_port = self
            .service_ports
            .get(&(service.to_owned(), port))
            .copied()
            .ok_or_else(|| format!("no local port for Service {service}:{port}"))?;
        url.set_host(Some("127.0.0.1")).map_err(|e| e.to_string())?;
        url.set_port(Some(local_port))
            .map_err(|()| "cannot set the port".to_owned())?;
        // Url adds a root path to a bare authority; the manifests' URLs have none.
        let mut text = url.to_string();
        if !value.ends_with('/') && text.ends_with('/') && url.path() == "/" {
            text.pop();
        }
        Ok((text, backend.name.clone()))
    }

    /// The value of Secret `secret` key `key`, made by the secrets table.
    fn secret(
        &self,
        workload: &Workload,
        container: &Container,
        secret: &str,
        key: &str,
        vault: &mut Vault,
    ) -> Result<String, String> {
        let produce = secrets::produce(key).ok_or_else(|| {
            format!(
                "Secret {secret} key {key} is not in the secrets table (distributed/src/secrets.rs)"
            )
        })?;
        let owner = secrets::owner(secret);
        let err = |e: anyhow::Error| format!("{e:#}");
        Ok(match produce {
            Produce::DatabaseUrl => self
                .databases
                .get(owner)
                .cloned()
                .ok_or_else(|| format!("no local database for {owner}"))?,
            Produce::RedisUrl => self.redis_url.to_owned(),
            Produce::SmtpUsername => self.mail.username.clone(),
            Produce::SmtpPassword => self.mail.password.clone(),
            Produce::Random => vault.random(key).map_err(err)?,
            Produce::ClientSecret => vault.client_secret(owner).map_err(err)?,
            Produce::ClientDigest => {
                let id = key.strip_prefix("client-digest-").unwrap_or(key);
                vault.client_digest(id).map_err(err)?
            }
            Produce::SigningKeys => {
                let kid = self
                    .active_kid(container)
                    .unwrap_or_else(|| "local-1".into());
                secrets::signing_keys_toml(&kid, &vault.signing_key().map_err(err)?)
            }
            Produce::TlsCert | Produce::TlsKey | Produce::TlsCa => {
                let cert = self.pki.cert(&workload.name).map_err(err)?;
                let path = match produce {
                    Produce::TlsCert => &cert.cert,
                    Produce::TlsKey => &cert.key,
                    _ => &self.pki.ca_file,
                };
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?
            }
        })
    }

    /// `APP_AUTH__SIGNING__ACTIVE_KID` as the container's ConfigMaps set it.
    fn active_kid(&self, container: &Container) -> Option<String> {
        container.env_from.iter().find_map(|from| {
            let map = from.config_map_ref.as_ref()?;
            self.rendered
                .config_maps
                .get(&map.name)?
                .get("APP_AUTH__SIGNING__ACTIVE_KID")
                .cloned()
        })
    }

    /// The files of the container's mounts, and each mount path's local place.
    #[allow(clippy::type_complexity)]
    fn mounts(
        &self,
        workload: &Workload,
        container: &Container,
        workdir: &Path,
        vault: &mut Vault,
    ) -> Result<(Vec<(PathBuf, String)>, Vec<(String, PathBuf)>), PlanError> {
        let mut files = Vec::new();
        let mut mounts = Vec::new();
        for mount in &container.volume_mounts {
            let local = local_mount_path(workdir, &mount.mount_path);
            let volume = workload
                .pod
                .volumes
                .iter()
                .find(|v| v.name == mount.name)
                .ok_or_else(|| PlanError::Workload {
                    workload: workload.name.clone(),
                    reason: format!("volume {} is mounted but not declared", mount.name),
                })?;
            let fail = |reason: String| PlanError::Unproducible {
                workload: workload.name.clone(),
                variable: format!("volume {} at {}", mount.name, mount.mount_path),
                reason,
            };
            // key → file name inside the volume.
            let entries: Vec<(String, String)> = if let Some(secret) = &volume.secret {
                if secret.items.is_empty() {
                    return Err(fail("a Secret volume must list its items here".into()));
                }
                let mut entries = Vec::new();
                for item in &secret.items {
                    let value = self
                        .secret(workload, container, &secret.secret_name, &item.key, vault)
                        .map_err(&fail)?;
                    entries.push((item.path.clone(), value));
                }
                entries
            } else if let Some(map) = &volume.config_map {
                let data = self
                    .rendered
                    .config_maps
                    .get(&map.name)
                    .ok_or_else(|| fail(format!("no ConfigMap {}", map.name)))?;
                if map.items.is_empty() {
                    data.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
                } else {
                    map.items
                        .iter()
                        .map(|item| {
                            data.get(&item.key)
                                .map(|v| (item.path.clone(), v.clone()))
                                .ok_or_else(|| {
                                    fail(format!("no key {} in ConfigMap {}", item.key, map.name))
                                })
                        })
                        .collect::<Result<_, _>>()?
                }
            } else if volume.empty_dir.is_some() {
                Vec::new()
            } else {
                return Err(fail(
                    "only Secret, ConfigMap and emptyDir volumes are known here".into(),
                ));
            };
            match &mount.sub_path {
                Some(sub_path) => {
                    let (_, value) = entries
                        .into_iter()
                        .find(|(path, _)| path == sub_path)
                        .ok_or_else(|| fail(format!("no item {sub_path} in the volume")))?;
                    files.push((local.clone(), value));
                }
                None => {
                    if volume.empty_dir.is_some() {
                        files.push((local.join(".keep"), String::new()));
                    }
                    for (path, value) in entries {
                        files.push((local.join(path), value));
                    }
                }
            }
            mounts.push((mount.mount_path.clone(), local));
        }
        Ok((files, mounts))
    }

    /// The settings one machine needs that the cluster leaves to defaults (see the module doc).
    fn add_local_settings(&self, env: &mut BTreeMap<String, String>, rewritten_ports: &[String]) {
        let mut add = |key: &str, value: String| {
            env.entry(key.to_owned()).or_insert(value);
        };
        for port_var in rewritten_ports {
            if let Some(section) = port_var.strip_suffix("__SERVER__PORT") {
                add(&format!("{section}__SERVER__HOST"), "127.0.0.1".into());
            }
        }
        let sets = |key: &str, env: &BTreeMap<String, String>| env.contains_key(key);
        let snapshot = env.clone();
        let mut add = |key: &str, value: String| {
            env.entry(key.to_owned()).or_insert(value);
        };
        if sets("APP_NOTIFIER__SMTP_HOST", &snapshot) {
            add("APP_NOTIFIER__SMTP_PORT", self.mail.smtp_port.to_string());
            add("APP_NOTIFIER__SMTP_TLS", "implicit".into());
            add(
                "APP_NOTIFIER__SMTP_CA_FILE",
                self.pki.ca_file.display().to_string(),
            );
        }
        if snapshot
            .keys()
            .any(|k| k.starts_with("APP_GATEWAY__RECAPTCHA__"))
        {
            add(
                "APP_GATEWAY__RECAPTCHA__VERIFY_URL",
                self.recaptcha_verify_url.to_owned(),
            );
        }
        if let Some(prefix) = self.redis_key_prefix {
            if sets("APP_EPHEMERAL__REDIS_URL", &snapshot) {
                add("APP_EPHEMERAL__KEY_PREFIX", prefix.to_owned());
            }
            if sets("APP_EVENTS__REDIS_URL", &snapshot) {
                add("APP_EVENTS__KEY_PREFIX", prefix.to_owned());
            }
        }
    }
}

enum Rewritten {
    Keep,
    Drop,
    Port(u16),
    Value(String),
    /// A Service's URL, pointed at `backend`'s local port.
    Service {
        value: String,
        backend: String,
    },
}

/// `auth`, `auth.ns`, `auth.ns.svc`, `auth.ns.svc.cluster.local` → `auth`.
fn cluster_service_name(host: &str) -> &str {
    let mut parts = host.split('.');
    let first = parts.next().unwrap_or(host);
    let rest: Vec<&str> = parts.collect();
    let in_cluster = matches!(
        rest.as_slice(),
        [] | [_] | [_, "svc"] | [_, "svc", "cluster", "local"]
    );
    if in_cluster { first } else { host }
}

/// Where a mount path of the image lands in the local working folder.
fn local_mount_path(workdir: &Path, mount_path: &str) -> PathBuf {
    match mount_path.strip_prefix(IMAGE_WORKDIR) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            workdir.join(rest.trim_start_matches('/'))
        }
        _ => workdir.join("mnt").join(mount_path.trim_start_matches('/')),
    }
}

/// A resource of the container's limits as the downward API gives it: rounded up to whole
/// divisors (`limits.cpu` "500m" with divisor 1 → "1").
fn resource_value(container: &Container, resource: &str, divisor: Option<&str>) -> Option<String> {
    let (kind, name) = resource.split_once('.')?;
    if kind != "limits" {
        return None;
    }
    let quantity = container.resources.limits.get(name)?;
    let amount = if let Some(milli) = quantity.strip_suffix('m') {
        milli.parse::<f64>().ok()? / 1000.0
    } else {
        quantity.parse::<f64>().ok()?
    };
    let divisor = match divisor.unwrap_or("1") {
        d if d.ends_with('m') => d.trim_end_matches('m').parse::<f64>().ok()? / 1000.0,
        d => d.parse::<f64>().ok()?,
    };
    Some(((amount / divisor).ceil() as u64).max(1).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_host_names_reduce_to_their_service() {
        assert_eq!(cluster_service_name("auth"), "auth");
        assert_eq!(cluster_service_name("auth.miclub-dev"), "auth");
        assert_eq!(
            cluster_service_name("auth.miclub-dev.svc.cluster.local"),
            "auth"
        );
        assert_eq!(
            cluster_service_name("smtp.miclub.example"),
            "smtp.miclub.example"
        );
    }

    #[test]
    fn mount_paths_under_the_image_workdir_land_in_the_local_one() {
        let workdir = Path::new("/state/app/auth");
        assert_eq!(
            local_mount_path(workdir, "/app/config/base.toml"),
            PathBuf::from("/state/app/auth/config/base.toml")
        );
        assert_eq!(
            local_mount_path(workdir, "/etc/miclub/accrual"),
            PathBuf::from("/state/app/auth/mnt/etc/miclub/accrual")
        );
    }
}
