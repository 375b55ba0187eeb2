"""IOF XML 3.0 exchange of an event: the CourseData, EntryList and ResultList exports and
the CourseData import with its report (`service` gathers the event's data, `schemas` the
report, `endpoints` routes; the XML itself is built and parsed by the pure
`app.core.iof`). The EntryList import is part of `POST …/participants/import`
(`app.events.service.import_participants_iof`); the organiser's page is
`app.web.admin.iof`."""
