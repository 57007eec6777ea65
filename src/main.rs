use std::process::ExitCode;

fn main() -> ExitCode {
    // A game directory holds passwords (archived mail) and hidden state:
    // whatever the user's umask, what the program creates is private.
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    empereur::cli::main()
}
