//! The rendered Kubernetes overlay, read as data.
//!
//! `kubectl kustomize k8s/overlays/dev` is the one source of what each process is given: the
//! workloads (Deployments and the StatefulSet), the migration Jobs, the Services that name
//! them and the ConfigMaps they read. Only the fields the topology needs are modelled; every
//! other field is ignored, so a manifest may grow without this module knowing.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, bail};
use serde::Deserialize;

/// Renders an overlay with `kubectl kustomize` as `scripts/validate-k8s.sh` and the runbook do
/// (the accrual rules ConfigMap is generated from the repository's own file, outside k8s/).
pub fn render(overlay: &Path) -> anyhow::Result<String> {
    let output = std::process::Command::new("kubectl")
        .args(["kustomize", "--load-restrictor", "LoadRestrictionsNone"])
        .arg(overlay)
        .output()
        .context("running kubectl kustomize (is kubectl installed?)")?;
    if !output.status.success() {
        bail!(
            "kubectl kustomize {} failed: {}",
            overlay.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    String::from_utf8(output.stdout).context("kubectl kustomize printed non-UTF-8 text")
}

/// What the topology reads from a rendered overlay.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// ConfigMaps by their rendered name (with kustomize's hash suffix, as envFrom names them).
    pub config_maps: BTreeMap<String, BTreeMap<String, String>>,
    /// Services by name.
    pub services: BTreeMap<String, ServiceSpec>,
    /// Deployments and StatefulSets: the long-running components.
    pub workloads: Vec<Workload>,
    /// Jobs (the migrations).
    pub jobs: Vec<Workload>,
}

/// A Deployment, StatefulSet or Job: its pod template.
#[derive(Debug, Clone)]
pub struct Workload {
    pub kind: String,
    pub name: String,
    /// The pod template's labels, which Services select.
    pub labels: BTreeMap<String, String>,
    pub pod: PodSpec,
}

impl Workload {
    /// The first container, the one the image runs (every workload here has one).
    pub fn container(&self) -> anyhow::Result<&Container> {
        self.pod
            .containers
            .first()
            .with_context(|| format!("{} {} has no container", self.kind, self.name))
    }

    /// The pod name the downward API would give (`metadata.name`): a StatefulSet's first pod is
    /// `<name>-0`, a Deployment's is named after the workload and this machine.
    pub fn pod_name(&self) -> String {
        if self.kind == "StatefulSet" {
            format!("{}-0", self.name)
        } else {
            format!("{}-local", self.name)
        }
    }
}

impl Rendered {
    /// Reads a multi-document YAML stream as `kubectl kustomize` prints it.
    pub fn parse(yaml: &str) -> anyhow::Result<Self> {
        let mut rendered = Rendered::default();
        for document in serde_norway::Deserializer::from_str(yaml) {
            let value = serde_norway::Value::deserialize(document).context("rendered yaml")?;
            if value.is_null() {
                continue;
            }
            let object: Object =
                serde_norway::from_value(value.clone()).context("a rendered object")?;
            let name = object.metadata.name.clone();
            match object.kind.as_str() {
                "ConfigMap" => {
                    rendered.config_maps.insert(name, object.data);
                }
                "Service" => {
                    let spec: ServiceSpec = spec_of(&value, &name)?;
                    rendered.services.insert(name, spec);
                }
                "Deployment" | "StatefulSet" | "Job" => {
                    let spec: WorkloadSpec = spec_of(&value, &name)?;
                    let workload = Workload {
                        kind: object.kind.clone(),
                        name,
                        labels: spec.template.metadata.labels,
                        pod: spec.template.spec,
                    };
                    if object.kind == "Job" {
                        rendered.jobs.push(workload);
                    } else {
                        rendered.workloads.push(workload);
                    }
                }
                _ => {}
            }
        }
        if rendered.workloads.is_empty() {
            bail!("the rendered overlay has no Deployment or StatefulSet");
        }
        Ok(rendered)
    }

    pub fn workload(&self, name: &str) -> Option<&Workload> {
        self.workloads.iter().find(|w| w.name == name)
    }

    /// The workload a Service sends its traffic to, and the container port behind `port`.
    pub fn backend(&self, service: &str, port: u16) -> Option<(&Workload, u16)> {
        let spec = self.services.get(service)?;
        let service_port = spec.ports.iter().find(|p| p.port == port)?;
        let workload = self.workloads.iter().find(|w| {
            !spec.selector.is_empty()
                && spec
                    .selector
                    .iter()
                    .all(|(k, v)| w.labels.get(k) == Some(v))
        })?;
        let target = service_port
            .target_port
            .clone()
            .unwrap_or(IntOrString::Int(port));
        let container_port = workload.container().ok()?.port(&target)?;
        Some((workload, container_port))
    }
}

fn spec_of<T: serde::de::DeserializeOwned>(
    value: &serde_norway::Value,
    name: &str,
) -> anyhow::Result<T> {
    let spec = value
        .get("spec")
        .cloned()
        .with_context(|| format!("{name} has no spec"))?;
    serde_norway::from_value(spec).with_context(|| format!("the spec of {name}"))
}

#[derive(Debug, Deserialize)]
struct Object {
    kind: String,
    metadata: Metadata,
    #[serde(default)]
    data: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    name: String,
}

#[derive(Debug, Deserialize)]
struct WorkloadSpec {
    template: PodTemplate,
}

#[derive(Debug, Deserialize)]
struct PodTemplate {
    #[serde(default)]
    metadata: TemplateMetadata,
    spec: PodSpec,
}

#[derive(Debug, Default, Deserialize)]
struct TemplateMetadata {
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    pub containers: Vec<Container>,
    #[serde(default)]
    pub volumes: Vec<Volume>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    pub name: String,
    pub image: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: Vec<EnvVar>,
    #[serde(default)]
    pub env_from: Vec<EnvFromSource>,
    #[serde(default)]
    pub ports: Vec<ContainerPort>,
    #[serde(default)]
    pub readiness_probe: Option<Probe>,
    #[serde(default)]
    pub volume_mounts: Vec<VolumeMount>,
    #[serde(default)]
    pub resources: Resources,
}

impl Container {
    /// The binary the image runs: the image name's last path segment without tag or digest
    /// (`registry.example.com/miclub/miclub-auth:dev` runs `miclub-auth`; see the Dockerfile).
    pub fn binary(&self) -> &str {
        let last = self.image.rsplit('/').next().unwrap_or(&self.image);
        let without_digest = last.split('@').next().unwrap_or(last);
        without_digest.split(':').next().unwrap_or(without_digest)
    }

    /// The container port a probe or a Service names, by number or by name.
    pub fn port(&self, port: &IntOrString) -> Option<u16> {
        match port {
            IntOrString::Int(number) => Some(*number),
            IntOrString::Name(name) => self
                .ports
                .iter()
                .find(|p| p.name.as_deref() == Some(name))
                .map(|p| p.container_port),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvVar {
    pub name: String,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub value_from: Option<EnvVarSource>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvVarSource {
    #[serde(default)]
    pub config_map_key_ref: Option<KeyRef>,
    #[serde(default)]
    pub secret_key_ref: Option<KeyRef>,
    #[serde(default)]
    pub field_ref: Option<FieldRef>,
    #[serde(default)]
    pub resource_field_ref: Option<ResourceFieldRef>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct KeyRef {
    pub name: String,
    pub key: String,
    #[serde(default)]
    pub optional: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldRef {
    pub field_path: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ResourceFieldRef {
    pub resource: String,
    #[serde(default)]
    pub divisor: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvFromSource {
    #[serde(default)]
    pub config_map_ref: Option<NameRef>,
    #[serde(default)]
    pub secret_ref: Option<NameRef>,
    #[serde(default)]
    pub prefix: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct NameRef {
    pub name: String,
    #[serde(default)]
    pub optional: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerPort {
    #[serde(default)]
    pub name: Option<String>,
    pub container_port: u16,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum IntOrString {
    Int(u16),
    Name(String),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    #[serde(default)]
    pub grpc: Option<GrpcProbe>,
    #[serde(default)]
    pub http_get: Option<HttpProbe>,
    #[serde(default)]
    pub tcp_socket: Option<TcpProbe>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TcpProbe {
    pub port: IntOrString,
}

#[derive(Debug, Clone, Deserialize)]
pub struct GrpcProbe {
    pub port: u16,
    #[serde(default)]
    pub service: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct HttpProbe {
    pub path: String,
    pub port: IntOrString,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VolumeMount {
    pub name: String,
    pub mount_path: String,
    #[serde(default)]
    pub sub_path: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Resources {
    #[serde(default)]
    pub limits: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Volume {
    pub name: String,
    #[serde(default)]
    pub secret: Option<SecretVolume>,
    #[serde(default)]
    pub config_map: Option<ConfigMapVolume>,
    #[serde(default)]
    pub empty_dir: Option<serde_norway::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretVolume {
    pub secret_name: String,
    #[serde(default)]
    pub items: Vec<KeyToPath>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ConfigMapVolume {
    pub name: String,
    #[serde(default)]
    pub items: Vec<KeyToPath>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct KeyToPath {
    pub key: String,
    pub path: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServiceSpec {
    #[serde(default)]
    pub selector: BTreeMap<String, String>,
    #[serde(default)]
    pub ports: Vec<ServicePort>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePort {
    pub port: u16,
    #[serde(default)]
    pub target_port: Option<IntOrString>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_is_the_last_segment_of_the_image_without_tag_or_digest() {
        let container = |image: &str| Container {
            name: "c".into(),
            image: image.into(),
            args: vec![],
            env: vec![],
            env_from: vec![],
            ports: vec![],
            readiness_probe: None,
            volume_mounts: vec![],
            resources: Resources::default(),
        };
        assert_eq!(
            container("registry.example.com/miclub/miclub-auth:dev").binary(),
            "miclub-auth"
        );
        assert_eq!(
            container("r/miclub-gateway@sha256:abc").binary(),
            "miclub-gateway"
        );
        assert_eq!(container("miclub-content").binary(), "miclub-content");
    }
}
