/** What a science metadata document says of a dataset, in DataCite's terms, before the node adds its own. */
import type {
  Contributor,
  DataciteDate,
  DataciteName,
  Description,
  FundingReference,
  GeoLocation,
  Rights,
  Subject,
  Title,
} from "./record.ts";

export type { Contributor, DataciteName } from "./record.ts";

export interface DescribedFields {
  titles: Title[];
  creators: DataciteName[];
  contributors: Contributor[];
  subjects: Subject[];
  descriptions: Description[];
  dates: DataciteDate[];
  geoLocations: GeoLocation[];
  fundingReferences: FundingReference[];
  rights: Rights[];
  /** The publication date as the document writes it (its first four digits are the year). */
  published?: string;
  language?: string;
}

export function emptyFields(): DescribedFields {
  return {
    titles: [],
    creators: [],
    contributors: [],
    subjects: [],
    descriptions: [],
    dates: [],
    geoLocations: [],
    fundingReferences: [],
    rights: [],
  };
}
