"""Servicers: convert protobuf to domain values, call one service function, convert back.

They never catch errors (the interceptor maps them) and hold no rules (services do).
"""
