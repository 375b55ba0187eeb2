"""Server-rendered pages (Jinja2) and their shared templating setup."""
