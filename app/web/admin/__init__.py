"""Organiser pages under `/admin` (templates: `app/templates/admin/`)."""
