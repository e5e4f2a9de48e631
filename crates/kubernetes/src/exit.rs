//! The process exit status: one enum, so every command agrees on the codes.

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything is fine.
    Success = 0,
    /// The command ran and found something: findings, differences, drift.
    Findings = 1,
    /// Bad usage or bad input; nothing was produced.
    BadInput = 2,
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit as u8)
    }
}
