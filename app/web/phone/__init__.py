"""Participant phone pages: `/p/{token}`, `/me…`, `/t/{code}`, the offline app
(templates: `app/templates/phone/`)."""
