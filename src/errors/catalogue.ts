/**
 * Detail codes per (API method, exception), transcribed from the MN and CN API reference. The error handler
 * looks the code up for the method a route serves; this table is the product's source of truth.
 *
 * Reference oddities kept as listed (each code is valid only for the method it is listed under):
 * - CNCore.reserveIdentifier gives ServiceFailure and IdentifierNotUnique the same code (4210), and
 *   CNIdentity.getSubjectInfo gives NotFound and InvalidToken the same code (4564).
 * - Codes are reused across methods for different exceptions, e.g. 2160/2162 (MNCore.getCapabilities vs
 *   MNRead.synchronizationFailed), 4960-4963 (CNCore.delete vs CNRead.synchronize), 4970-4974, 4880-4881,
 *   4840-4845, 4410, 4956, 4961 and 1402.
 */

import type { ExceptionName } from "./exceptions.ts";

type CodeTable = Readonly<Partial<Record<ExceptionName, string>>>;

// biome-ignore format: one method per line keeps the table readable
export const DETAIL_CODES = {
  // MNCore
  "MNCore.getCapabilities": { NotImplemented: "2160", ServiceFailure: "2162" },
  "MNCore.getLogRecords": { NotAuthorized: "1460", InvalidRequest: "1480", ServiceFailure: "1490",
    InvalidToken: "1470", NotImplemented: "1461" },
  "MNCore.ping": { NotImplemented: "2041", ServiceFailure: "2042", InsufficientResources: "2045" },
  // MNRead
  "MNRead.describe": { NotAuthorized: "1360", NotFound: "1380", ServiceFailure: "1390", InvalidToken: "1370",
    NotImplemented: "1361" },
  "MNRead.get": { NotAuthorized: "1000", NotFound: "1020", ServiceFailure: "1030", InvalidToken: "1010",
    NotImplemented: "1001", InsufficientResources: "1002" },
  "MNRead.getChecksum": { NotAuthorized: "1400", NotFound: "1420", InvalidRequest: "1402",
    ServiceFailure: "1410", InvalidToken: "1430", NotImplemented: "1401" },
  "MNRead.getReplica": { NotImplemented: "2180", ServiceFailure: "2181", NotAuthorized: "2182",
    InvalidToken: "2183", InsufficientResources: "2184", NotFound: "2185" },
  "MNRead.getSystemMetadata": { NotAuthorized: "1040", NotImplemented: "1041", NotFound: "1060",
    ServiceFailure: "1090", InvalidToken: "1050" },
  "MNRead.listObjects": { NotAuthorized: "1520", InvalidRequest: "1540", NotImplemented: "1560",
    ServiceFailure: "1580", InvalidToken: "1530" },
  "MNRead.synchronizationFailed": { NotImplemented: "2160", ServiceFailure: "2161", NotAuthorized: "2162",
    InvalidToken: "2164" },
  "MNRead.systemMetadataChanged": { NotImplemented: "1330", NotAuthorized: "1331", InvalidToken: "1332",
    ServiceFailure: "1333", InvalidRequest: "1334" },
  // MNQuery
  "MNQuery.listQueryEngines": { NotImplemented: "2800", ServiceFailure: "2801", InvalidToken: "2802",
    NotAuthorized: "2803" },
  "MNQuery.getQueryEngineDescription": { NotImplemented: "2810", ServiceFailure: "2811", InvalidToken: "2812",
    NotAuthorized: "2813", NotFound: "2814" },
  "MNQuery.query": { InvalidToken: "2820", ServiceFailure: "2821", NotAuthorized: "2822",
    InvalidRequest: "2823", NotImplemented: "2824", NotFound: "2825" },
  // MNView
  "MNView.listViews": { InvalidToken: "2840", ServiceFailure: "2841", NotAuthorized: "2842",
    InvalidRequest: "2843", NotImplemented: "2844" },
  "MNView.view": { InvalidToken: "2830", ServiceFailure: "2831", NotAuthorized: "2832",
    InvalidRequest: "2833", NotImplemented: "2834", NotFound: "2835" },
  // MNPackage
  "MNPackage.getPackage": { InvalidToken: "2870", ServiceFailure: "2871", NotAuthorized: "2872",
    InvalidRequest: "2873", NotImplemented: "2874", NotFound: "2875" },
  // MNAuthorization
  "MNAuthorization.isAuthorized": { ServiceFailure: "1760", NotImplemented: "1780", NotFound: "1800",
    NotAuthorized: "1820", InvalidToken: "1840", InvalidRequest: "1761" },
  // MNStorage
  "MNStorage.create": { NotAuthorized: "1100", IdentifierNotUnique: "1120", UnsupportedType: "1140",
    InsufficientResources: "1160", InvalidSystemMetadata: "1180", ServiceFailure: "1190",
    InvalidToken: "1110", NotImplemented: "1101", InvalidRequest: "1102" },
  "MNStorage.update": { NotAuthorized: "1200", IdentifierNotUnique: "1220", UnsupportedType: "1240",
    InsufficientResources: "1260", NotFound: "1280", InvalidSystemMetadata: "1300", ServiceFailure: "1310",
    InvalidToken: "1210", NotImplemented: "1201", InvalidRequest: "1202" },
  "MNStorage.archive": { NotAuthorized: "2910", NotFound: "2911", ServiceFailure: "2912",
    InvalidToken: "2913", NotImplemented: "2914" },
  "MNStorage.delete": { NotAuthorized: "2900", NotFound: "2901", ServiceFailure: "2902", InvalidToken: "2903",
    NotImplemented: "2904" },
  "MNStorage.generateIdentifier": { InvalidToken: "2190", ServiceFailure: "2191", NotAuthorized: "2192",
    InvalidRequest: "2193", NotImplemented: "2194" },
  "MNStorage.updateSystemMetadata": { NotImplemented: "4866", NotAuthorized: "4867", ServiceFailure: "4868",
    InvalidRequest: "4869", InvalidSystemMetadata: "4956", InvalidToken: "4957" },
  // MNReplication
  "MNReplication.replicate": { NotImplemented: "2150", ServiceFailure: "2151", NotAuthorized: "2152",
    InvalidRequest: "2153", InsufficientResources: "2154", UnsupportedType: "2155", InvalidToken: "2156" },
  // CNDiagnostic
  "CNDiagnostic.echoCredentials": { NotImplemented: "4965", ServiceFailure: "4966", InvalidToken: "4967" },
  "CNDiagnostic.echoIndexedObject": { NotImplemented: "4980", ServiceFailure: "4981", NotAuthorized: "4982",
    InvalidToken: "4983", InvalidRequest: "4984", InvalidSystemMetadata: "4985", UnsupportedType: "4986",
    UnsupportedMetadataType: "4987", InsufficientResources: "4988" },
  "CNDiagnostic.echoSystemMetadata": { NotImplemented: "4970", ServiceFailure: "4971", NotAuthorized: "4972",
    InvalidToken: "4973", InvalidRequest: "4974", IdentifierNotUnique: "4975",
    InvalidSystemMetadata: "4976" },
  // CNCore (CN ping is listed here)
  "CNCore.archive": { NotAuthorized: "4970", NotFound: "4971", ServiceFailure: "4972", InvalidToken: "4973",
    NotImplemented: "4974" },
  "CNCore.create": { NotAuthorized: "1100", IdentifierNotUnique: "1120", UnsupportedType: "4895",
    InsufficientResources: "4897", InvalidSystemMetadata: "4896", ServiceFailure: "4893",
    InvalidToken: "4894", NotImplemented: "4890", InvalidRequest: "4891" },
  "CNCore.delete": { NotAuthorized: "4960", NotFound: "4961", ServiceFailure: "4962", InvalidToken: "4963",
    NotImplemented: "4964" },
  "CNCore.generateIdentifier": { InvalidToken: "4190", ServiceFailure: "4210", NotAuthorized: "4180",
    InvalidRequest: "4200", NotImplemented: "4191" },
  "CNCore.getCapabilities": { NotImplemented: "4802", ServiceFailure: "4803" },
  "CNCore.getFormat": { NotImplemented: "4845", ServiceFailure: "4846", NotFound: "4848" },
  "CNCore.getLogRecords": { InvalidToken: "1470", ServiceFailure: "1490", NotAuthorized: "1460",
    NotImplemented: "1461", InvalidRequest: "1480", InsufficientResources: "1481" },
  "CNCore.hasReservation": { NotImplemented: "4920", ServiceFailure: "4921", InvalidToken: "4922",
    NotFound: "4923", NotAuthorized: "4924", InvalidRequest: "4925" },
  "CNCore.listChecksumAlgorithms": { NotImplemented: "4880", ServiceFailure: "4881" },
  "CNCore.listFormats": { NotImplemented: "4840", ServiceFailure: "4841" },
  "CNCore.listNodes": { NotImplemented: "4800", ServiceFailure: "4801" },
  "CNCore.ping": { NotImplemented: "2041", ServiceFailure: "2042", InsufficientResources: "2045" },
  "CNCore.registerSystemMetadata": { NotImplemented: "4860", NotAuthorized: "4861", ServiceFailure: "4862",
    InvalidRequest: "4863", InvalidSystemMetadata: "4864", InvalidToken: "4865" },
  "CNCore.reserveIdentifier": { InvalidToken: "4190", ServiceFailure: "4210", NotAuthorized: "4180",
    InvalidRequest: "4200", IdentifierNotUnique: "4210", NotImplemented: "4191" },
  "CNCore.setObsoletedBy": { NotImplemented: "4940", ServiceFailure: "4941", InvalidRequest: "4942",
    InvalidToken: "4943", NotFound: "4944", NotAuthorized: "4945", VersionMismatch: "4946" },
  "CNCore.updateSystemMetadata": { NotImplemented: "4866", NotAuthorized: "4867", ServiceFailure: "4868",
    InvalidRequest: "4869", InvalidSystemMetadata: "4956", InvalidToken: "4957" },
  // CNRead
  "CNRead.describe": { NotImplemented: "4930", ServiceFailure: "4931", InvalidToken: "4932", NotFound: "4933",
    NotAuthorized: "4934" },
  "CNRead.get": { NotAuthorized: "1000", NotImplemented: "1001", NotFound: "1020", ServiceFailure: "1030",
    InvalidToken: "1010" },
  "CNRead.getChecksum": { NotImplemented: "1402", ServiceFailure: "1410", NotFound: "1420",
    NotAuthorized: "1400", InvalidToken: "1430" },
  "CNRead.getQueryEngineDescription": { NotImplemented: "4410", ServiceFailure: "4411", InvalidToken: "4412",
    NotAuthorized: "4413", NotFound: "4414" },
  "CNRead.getSystemMetadata": { InvalidToken: "1050", NotImplemented: "1041", ServiceFailure: "1090",
    NotAuthorized: "1040", NotFound: "1060" },
  "CNRead.listObjects": { NotAuthorized: "1520", InvalidRequest: "1540", NotImplemented: "1560",
    ServiceFailure: "1580", InvalidToken: "1530" },
  "CNRead.listQueryEngines": { NotImplemented: "4420", ServiceFailure: "4421", InvalidToken: "4422",
    NotAuthorized: "4423" },
  "CNRead.query": { InvalidToken: "4320", ServiceFailure: "4321", NotAuthorized: "4322",
    InvalidRequest: "4323", NotImplemented: "4324", NotFound: "4325" },
  "CNRead.resolve": { InvalidToken: "4130", ServiceFailure: "4150", NotAuthorized: "4120", NotFound: "4140",
    NotImplemented: "4131" },
  "CNRead.search": { InvalidToken: "4290", ServiceFailure: "4310", NotAuthorized: "4280",
    InvalidRequest: "4300", NotImplemented: "4281" },
  "CNRead.synchronize": { NotImplemented: "4960", ServiceFailure: "4961", NotAuthorized: "4962",
    InvalidToken: "4963" },
  // CNView
  "CNView.listViews": { InvalidToken: "2860", ServiceFailure: "2861", NotAuthorized: "2862",
    InvalidRequest: "2863", NotImplemented: "2864" },
  "CNView.view": { InvalidToken: "2850", ServiceFailure: "2851", NotAuthorized: "2852",
    InvalidRequest: "2853", NotImplemented: "2854", NotFound: "2855" },
  // CNAuthorization
  "CNAuthorization.isAuthorized": { ServiceFailure: "1760", InvalidToken: "1840", NotFound: "1800",
    NotAuthorized: "1820", NotImplemented: "1780", InvalidRequest: "1761" },
  "CNAuthorization.setAccessPolicy": { InvalidToken: "4410", ServiceFailure: "4430", NotFound: "4400",
    NotAuthorized: "4420", NotImplemented: "4401", InvalidRequest: "4402", VersionMismatch: "4403" },
  "CNAuthorization.setRightsHolder": { ServiceFailure: "4490", InvalidToken: "4480", NotAuthorized: "4440",
    NotFound: "4460", NotImplemented: "4441", InvalidRequest: "4442", VersionMismatch: "4443" },
  // CNIdentity
  "CNIdentity.registerAccount": { ServiceFailure: "4520", IdentifierNotUnique: "4521",
    InvalidCredentials: "4522", NotImplemented: "4523", InvalidRequest: "4524", NotAuthorized: "4525",
    InvalidToken: "4526" },
  "CNIdentity.updateAccount": { ServiceFailure: "4530", InvalidCredentials: "4531", NotImplemented: "4532",
    InvalidRequest: "4533", NotAuthorized: "4534", NotFound: "4535", InvalidToken: "4536" },
  "CNIdentity.verifyAccount": { ServiceFailure: "4540", NotAuthorized: "4541", NotImplemented: "4542",
    InvalidToken: "4543", InvalidRequest: "4544" },
  "CNIdentity.getSubjectInfo": { NotImplemented: "4560", ServiceFailure: "4561", NotFound: "4564",
    NotAuthorized: "4563", InvalidToken: "4564" },
  "CNIdentity.listSubjects": { ServiceFailure: "2290", InvalidToken: "2270", NotAuthorized: "2260",
    NotImplemented: "2261", InvalidRequest: "2262" },
  "CNIdentity.mapIdentity": { ServiceFailure: "2390", InvalidToken: "2370", NotAuthorized: "2360",
    NotFound: "2340", NotImplemented: "2361", InvalidRequest: "2342", IdentifierNotUnique: "2343" },
  // listed as "same set and codes as mapIdentity"
  "CNIdentity.requestMapIdentity": { ServiceFailure: "2390", InvalidToken: "2370", NotAuthorized: "2360",
    NotFound: "2340", NotImplemented: "2361", InvalidRequest: "2342", IdentifierNotUnique: "2343" },
  "CNIdentity.confirmMapIdentity": { ServiceFailure: "2390", InvalidToken: "2370", NotAuthorized: "2360",
    NotFound: "2340", NotImplemented: "2361" },
  // listed as "same as confirmMapIdentity"
  "CNIdentity.denyMapIdentity": { ServiceFailure: "2390", InvalidToken: "2370", NotAuthorized: "2360",
    NotFound: "2340", NotImplemented: "2361" },
  // InvalidToken 4961 is out of the 23xx family, as listed
  "CNIdentity.getPendingMapIdentity": { ServiceFailure: "2390", NotAuthorized: "2360", NotFound: "2340",
    NotImplemented: "2361", InvalidToken: "4961" },
  "CNIdentity.removeMapIdentity": { ServiceFailure: "2390", InvalidToken: "2370", NotAuthorized: "2360",
    NotFound: "2340", NotImplemented: "2361" },
  "CNIdentity.createGroup": { ServiceFailure: "2490", InvalidToken: "2470", NotAuthorized: "2460",
    NotImplemented: "2461", IdentifierNotUnique: "2400" },
  "CNIdentity.updateGroup": { ServiceFailure: "2590", InvalidToken: "2570", NotAuthorized: "2560",
    NotFound: "2540", NotImplemented: "2561", InvalidRequest: "2542" },
  // CNReplication
  "CNReplication.setReplicationPolicy": { NotImplemented: "4880", NotAuthorized: "4881",
    ServiceFailure: "4882", InvalidRequest: "4883", NotFound: "4884", InvalidToken: "4885",
    VersionMismatch: "4886" },
  "CNReplication.setReplicationStatus": { ServiceFailure: "4700", NotImplemented: "4701",
    InvalidToken: "4710", NotAuthorized: "4720", InvalidRequest: "4730", NotFound: "4740" },
  "CNReplication.updateReplicationMetadata": { NotImplemented: "4850", NotAuthorized: "4851",
    ServiceFailure: "4852", InvalidRequest: "4853", NotFound: "4854", VersionMismatch: "4855",
    InvalidToken: "4856" },
  "CNReplication.deleteReplicationMetadata": { NotImplemented: "4950", ServiceFailure: "4951",
    InvalidRequest: "4952", InvalidToken: "4953", NotFound: "4956", NotAuthorized: "4954",
    VersionMismatch: "4955" },
  "CNReplication.isNodeAuthorized": { NotImplemented: "4870", NotAuthorized: "4871", ServiceFailure: "4872",
    InvalidRequest: "4873", NotFound: "4874", InvalidToken: "4875" },
  // CNRegister
  "CNRegister.getNodeCapabilities": { NotImplemented: "4826", ServiceFailure: "4827", InvalidRequest: "4828",
    NotFound: "4829" },
  "CNRegister.register": { NotImplemented: "4840", NotAuthorized: "4841", ServiceFailure: "4842",
    InvalidRequest: "4843", IdentifierNotUnique: "4844", InvalidToken: "4845" },
  "CNRegister.updateNodeCapabilities": { NotImplemented: "4820", NotAuthorized: "4821",
    ServiceFailure: "4822", InvalidRequest: "4823", NotFound: "4824", InvalidToken: "4825" },
} as const satisfies Record<string, CodeTable>;

export type ApiMethod = keyof typeof DETAIL_CODES;

/** Fallback for a pair the reference does not list: the spec names no code for it, so "0" is sent. */
export const UNLISTED_DETAIL_CODE = "0";

/** The detail code for `exception` raised by `method` (e.g. "MNRead.get"), or "0" when the pair is unlisted. */
export function detailCodeFor(method: string, exception: ExceptionName): string {
  if (!Object.hasOwn(DETAIL_CODES, method)) return UNLISTED_DETAIL_CODE;
  const codes: CodeTable = DETAIL_CODES[method as ApiMethod];
  return codes[exception] ?? UNLISTED_DETAIL_CODE;
}
