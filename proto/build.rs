//! Generates the Rust types, clients and servers of every `.proto` in this crate.
//! protoc comes from the `protoc-bin-vendored` crate, so the build needs nothing installed.

use std::path::PathBuf;

const PROTOS: &[&str] = &[
    "common/v1/errors.proto",
    "auth/v1/auth.proto",
    "accounts/v1/accounts.proto",
    "content/v1/content.proto",
    "registration/v1/registration.proto",
    "identity/v1/verifier.proto",
    "missions/v1/missions.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let mut config = tonic_prost_build::Config::new();
    config.protoc_executable(protoc);
    tonic_prost_build::configure()
        .file_descriptor_set_path(out_dir.join("miclub_descriptor.bin"))
        .compile_with_config(config, PROTOS, &["."])?;
    for proto in PROTOS {
        println!("cargo:rerun-if-changed={proto}");
    }
    Ok(())
}
