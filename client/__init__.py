"""Cardhall client: a thin async client library, scripted bots and a terminal client."""
