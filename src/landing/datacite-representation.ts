/** The media type of a DataCite Metadata Schema 4.6 record, as landing pages negotiate and signpost it. */
export const DATACITE_MEDIA_TYPE = "application/vnd.datacite.datacite+xml";
