//! Passes the target and host triples to the integration tests, which
//! compile the C examples with the `cc` crate outside a build script.

fn main() {
    for var in ["TARGET", "HOST"] {
        let value = std::env::var(var).unwrap_or_default();
        println!("cargo:rustc-env=EPDKIT_BUILD_{var}={value}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
