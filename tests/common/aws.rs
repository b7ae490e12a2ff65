//! The real AWS CLI (a venv with awscli and moto[server], made once by
//! scripts/test.sh, its bin folder in TOKENSIEVE_TEST_AWS_VENV) and a local
//! moto server for it to talk to.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::Sandbox;

pub fn venv() -> Option<PathBuf> {
    super::prepared_dir("TOKENSIEVE_TEST_AWS_VENV", "real-AWS-CLI test")
}

/// A moto server on a free local port, stopped by pid when dropped.
pub struct Moto {
    child: Child,
    pub endpoint: String,
}

impl Moto {
    pub fn start(venv: &std::path::Path) -> Moto {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(venv.join("moto_server"))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server starts");
        let moto = Moto { child, endpoint: format!("http://127.0.0.1:{port}") };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(60), "moto_server did not listen on {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        moto
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        // SAFETY: signalling the server process we started, by its pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

pub fn with_aws_env(cmd: &mut Command, sb: &Sandbox) {
    cmd.env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_CONFIG_FILE", sb.path("aws-config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", sb.path("aws-credentials"));
}
