"""The languages: English source strings, gettext catalogs a translator opens, and the choice per device."""
