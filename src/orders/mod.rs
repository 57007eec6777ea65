//! The order language: lexer, parser, name resolution and validation.
//! See `orders/README.md` for the language reference.

pub mod ast;
