use std::process::ExitCode;

fn main() -> ExitCode {
    empereur::cli::main()
}
