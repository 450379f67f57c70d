"""Generated from proto/kxm/v1 by scripts/gen. Do not edit."""
