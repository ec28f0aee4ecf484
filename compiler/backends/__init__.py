"""One backend per target language; each turns an IR Program into source."""
