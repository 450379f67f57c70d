"""Generated from bench/proto by bench/gen.sh. Do not edit."""
