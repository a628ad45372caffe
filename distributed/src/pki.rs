//! The local certificate authority: a CA and one certificate per component (SANs 127.0.0.1,
//! localhost and the component's name), made with rcgen on first run and reused afterwards.
//! The mail catcher's SMTP listener and, with internal TLS on, the gRPC servers present them;
//! clients trust the CA file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

/// Where one certificate and its key are.
#[derive(Debug, Clone)]
pub struct CertFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// The CA file and the certificate of each name.
#[derive(Debug, Clone)]
pub struct Pki {
    pub ca_file: PathBuf,
    pub certs: BTreeMap<String, CertFiles>,
}

impl Pki {
    /// The certificates under `dir` for `names`; made anew (CA included) when any is missing.
    pub fn load_or_create(dir: &Path, names: &[String]) -> anyhow::Result<Self> {
        let pki = Self {
            ca_file: dir.join("ca.pem"),
            certs: names
                .iter()
                .map(|name| {
                    let files = CertFiles {
                        cert: dir.join(format!("{name}.pem")),
                        key: dir.join(format!("{name}-key.pem")),
                    };
                    (name.clone(), files)
                })
                .collect(),
        };
        let complete = pki.ca_file.exists()
            && pki
                .certs
                .values()
                .all(|files| files.cert.exists() && files.key.exists());
        if !complete {
            pki.create(dir)?;
        }
        Ok(pki)
    }

    pub fn cert(&self, name: &str) -> anyhow::Result<&CertFiles> {
        self.certs
            .get(name)
            .with_context(|| format!("no local certificate for {name}"))
    }

    fn create(&self, dir: &Path) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let ca_key = KeyPair::generate()?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "Mi Club local CA");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca_params.self_signed(&ca_key)?;
        let issuer = Issuer::new(ca_params, ca_key);
        for (name, files) in &self.certs {
            let key = KeyPair::generate()?;
            let mut params = CertificateParams::new(vec![
                "127.0.0.1".to_owned(),
                "localhost".to_owned(),
                name.clone(),
            ])?;
            params.distinguished_name.push(DnType::CommonName, name);
            params.extended_key_usages = vec![
                ExtendedKeyUsagePurpose::ServerAuth,
                ExtendedKeyUsagePurpose::ClientAuth,
            ];
            let cert = params.signed_by(&key, &issuer)?;
            write_private(&files.key, &key.serialize_pem())?;
            std::fs::write(&files.cert, cert.pem())?;
        }
        std::fs::write(&self.ca_file, ca_cert.pem())?;
        Ok(())
    }
}

/// Writes a file only its owner may read.
pub fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    file.write_all(contents.as_bytes())?;
    Ok(())
}
