// This file was generated from openapi/openapi.yaml by `pnpm generate`. Do not make direct changes to the file.

import type { OpenApiDocument } from '../openapi-document.js';

/** openapi/openapi.yaml as an object. */
export const openapiDocument: OpenApiDocument = {
  "openapi": "3.1.0",
  "info": {
    "title": "workforce-kit API",
    "version": "1.1.0",
    "summary": "Workforce (employees, shifts) and restaurant-configuration operations of a restaurant platform.",
    "description": "The contract of workforce-kit: four operations over employees, schedule shifts and restaurant\nconfiguration, each scoped to one restaurant.\n\n## Restaurant context\n\nEvery request names the restaurant it acts for in the `Platform-Restaurant-External-ID` header\n(a GUID; header names are case-insensitive). Every record belongs to exactly one restaurant. A\nrecord of another restaurant is invisible: it answers 404, never 403, and never hints that it\nexists. The access token names the restaurants its client may act for; a context restaurant\noutside that set is 403.\n\n## Identifiers\n\n- A platform GUID is a UUID in the 8-4-4-4-12 hex form. Any letter case is accepted on input;\n  every GUID in a response is lower case.\n- An external identifier is `{namingAuthority}:{value}`: the authority is 1 to 16 letters,\n  digits, `-` or `_`; the value is 1 to 256 characters (Unicode code points) with no whitespace,\n  no control characters and no unpaired surrogates. Path values are percent-decoded first (`AUTH%3A12` is `AUTH:12`).\n\n## Records\n\n`guid`, `entityType`, `createdDate`, `modifiedDate` and `deleted` are always present on\nemployees and shifts; `deletedDate` is present exactly when `deleted` is true. Every other\nfield is present when it has a value and omitted otherwise; no field is ever `null`. Dates are\nISO 8601 UTC with milliseconds, such as `2026-03-01T17:00:00.000Z`.\n\n## Errors\n\nEvery error is an RFC 9457 problem details document (`application/problem+json`) with a stable\nmachine-readable `code` and the `requestId` of the request. Every response, success or error,\ncarries that id in the `X-Request-Id` header; a client may send its own (printable ASCII, at\nmost 128 characters), which is then reused. Validation failures list each offending input in\n`errors`. A 500 never shows internal details: support finds them in the service's logs under\nthe `requestId`.\n\nEvery response carries `Cache-Control: no-store` (answers hold personal data) and\n`X-Content-Type-Options: nosniff`.\n\nAuthentication is decided before the request is validated: a request with a missing or bad\ntoken is 401 whatever else is wrong with it. A path that names no operation is 404 with code\n`NOT_FOUND`; a known path with a method it does not support is 405 with code\n`METHOD_NOT_ALLOWED` and an `Allow` header. A host that browsers on other origins call puts\nits CORS in front of the API, and that answers their `OPTIONS` preflights instead.\n\n## Limits\n\nRequests are rate-limited per restaurant context (per client address when the context header\nis missing): by default 20 requests per second and 10,000 per 15 minutes. Past a limit the\nanswer is 429 with `Retry-After`. A request refused by the per-second limit does not count\nagainst the 15-minute limit. The `RateLimit-Limit`, `RateLimit-Remaining` and\n`RateLimit-Reset` headers describe the limit closest to running out (the one with the fewest\nrequests left); on a 429, the limit that refused. Request bodies are at most 16 KiB; a request that is not\nanswered within the request timeout (10 s by default) is 503.\n\n## Events\n\nEach state change yields one domain event (`EmployeeArchived`, `EmployeeUnarchived`,\n`ShiftDeleted`) with the record's GUID, the restaurant GUID, the time and the request id.\nCalls that change nothing yield none. The `webhooks` of this document are these events as a\nservice sends them to its receivers (`employee.archived`, `employee.unarchived`,\n`shift.deleted`): Standard Webhooks, signed, retried, at least once, each with a stable\n`webhook-id` to de-duplicate on, and in order for each record.\n\n## Versioning\n\nPaths carry the major version (`v1`). `info.version` follows semantic versioning; a change\nthat breaks a client of an earlier version comes with a new path version.\n\n1.1.0, before the first release, corrected three decisions to agree with the platform's\npublished labor API: archiving an archived employee answers 200 with the record unchanged\n(it was 400 `EMPLOYEE_ALREADY_ARCHIVED`, a code that is gone); `archiveEmployee` takes an\nexternal identifier as well as a GUID; and `passcode` is never returned. No release carried\nthe earlier behaviour, so the path version stays `v1`.\n",
    "license": {
      "name": "MIT",
      "identifier": "MIT"
    }
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080",
      "description": "The reference server started by `npm start`."
    }
  ],
  "security": [
    {
      "oauth2": []
    }
  ],
  "tags": [
    {
      "name": "Employees",
      "description": "Employee records and their archived state. An archived employee (`deleted: true`) cannot sign\nin to the point-of-sale terminal or the web back office.\n"
    },
    {
      "name": "Shifts",
      "description": "Schedule shifts. Deleting a shift marks it `deleted: true`; the record stays readable.\n"
    },
    {
      "name": "Restaurants",
      "description": "The configuration record of a restaurant."
    },
    {
      "name": "Webhooks",
      "description": "Events the service sends to the receivers it is configured with (`WEBHOOK_URLS` on the\nreference server), as Standard Webhooks: an HTTP POST per event and receiver, signed,\nretried until acknowledged, at least once.\n"
    }
  ],
  "paths": {
    "/labor/v1/employees/{employeeId}/unarchive": {
      "put": {
        "operationId": "unarchiveEmployee",
        "tags": [
          "Employees"
        ],
        "summary": "Unarchive an employee",
        "description": "Restores an archived employee and returns the updated record.\n\n| State | Condition | Next state | Response |\n|---|---|---|---|\n| archived | the employee is archived | unarchived | 200 with the employee |\n| unarchived | the employee is not archived | unchanged | 400 `EMPLOYEE_NOT_ARCHIVED` |\n\nUnarchiving sets `deleted: false`, removes `deletedDate` and sets `modifiedDate`. The\nemployee can sign in to the point-of-sale terminal and the web back office again. Every job\npreviously assigned (`jobReferences`) and every wage override is kept, so the employee holds\nthe same jobs as when archived. A swipe card the employee had before archiving is **not**\nre-associated. When the employee takes a different role than at archiving time, the caller\nmust update the jobs list and check that the employee should keep web back-office sign-in.\n\nOf concurrent unarchives of one archived employee, exactly one succeeds; the others answer\n400 `EMPLOYEE_NOT_ARCHIVED`. A successful unarchive emits one `EmployeeUnarchived` event.\n\n**Content-Type.** The request must carry `Content-Type: application/json`; without it, or\nwith another media type, the answer is 415. No body is expected: an empty body or any JSON\nbody is accepted and ignored; a body that is not JSON is 400 `MALFORMED_JSON`; a body over\n16 KiB is 413.\n",
        "security": [
          {
            "oauth2": [
              "labor.employees:write"
            ]
          }
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/EmployeeGuid"
          },
          {
            "$ref": "#/components/parameters/RestaurantContext"
          },
          {
            "$ref": "#/components/parameters/RequestId"
          }
        ],
        "requestBody": {
          "required": false,
          "description": "Ignored. Send `{}` or nothing, always with `Content-Type` `application/json`.",
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EmptyBody"
              },
              "examples": {
                "empty": {
                  "summary": "An empty JSON object",
                  "value": {}
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The employee is unarchived. The body is the updated employee.",
            "headers": {
              "X-Request-Id": {
                "$ref": "#/components/headers/X-Request-Id"
              },
              "RateLimit-Limit": {
                "$ref": "#/components/headers/RateLimit-Limit"
              },
              "RateLimit-Remaining": {
                "$ref": "#/components/headers/RateLimit-Remaining"
              },
              "RateLimit-Reset": {
                "$ref": "#/components/headers/RateLimit-Reset"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Employee"
                },
                "examples": {
                  "unarchived": {
                    "$ref": "#/components/examples/UnarchivedEmployee"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/UnarchiveEmployeeBadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/EmployeeNotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          },
          "429": {
            "$ref": "#/components/responses/TooManyRequests"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/ServiceUnavailable"
          }
        }
      }
    },
    "/labor/v1/employees/{employeeId}": {
      "delete": {
        "operationId": "archiveEmployee",
        "tags": [
          "Employees"
        ],
        "summary": "Archive an employee",
        "description": "Archives an employee and returns the updated record. The inverse of `unarchiveEmployee`.\nThe employee is named by its platform GUID or by its external identifier\n(`{namingAuthority}:{value}`), resolved within the context restaurant.\n\n| State | Condition | Next state | Response |\n|---|---|---|---|\n| unarchived | the employee is not archived | archived | 200 with the employee |\n| archived | the employee is already archived | unchanged | 200 with the employee, unchanged |\n\nArchiving sets `deleted: true`, records `deletedDate` and sets `modifiedDate`. The job\nassignments and wage overrides are kept (so that unarchiving restores them); any swipe card\nassociation is dropped. The archived employee cannot sign in until unarchived.\n\nThe operation is idempotent, as on the platform: archiving an archived employee answers 200\nwith the stored record and changes nothing, `modifiedDate` included. Of concurrent archives\nof one employee, all answer 200 and exactly one changes the record and emits an\n`EmployeeArchived` event.\n\nAn identifier that is neither a GUID nor a well-formed external identifier is 400; one\nthat matches no employee of the context restaurant is 404.\n",
        "security": [
          {
            "oauth2": [
              "labor.employees:write"
            ]
          }
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/EmployeeId"
          },
          {
            "$ref": "#/components/parameters/RestaurantContext"
          },
          {
            "$ref": "#/components/parameters/RequestId"
          }
        ],
        "responses": {
          "200": {
            "description": "The employee is archived (now or before). The body is the employee.",
            "headers": {
              "X-Request-Id": {
                "$ref": "#/components/headers/X-Request-Id"
              },
              "RateLimit-Limit": {
                "$ref": "#/components/headers/RateLimit-Limit"
              },
              "RateLimit-Remaining": {
                "$ref": "#/components/headers/RateLimit-Remaining"
              },
              "RateLimit-Reset": {
                "$ref": "#/components/headers/RateLimit-Reset"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Employee"
                },
                "examples": {
                  "archived": {
                    "$ref": "#/components/examples/ArchivedEmployee"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/ArchiveEmployeeBadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/EmployeeNotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          },
          "429": {
            "$ref": "#/components/responses/TooManyRequests"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/ServiceUnavailable"
          }
        }
      }
    },
    "/labor/v1/shifts/{shiftId}": {
      "delete": {
        "operationId": "deleteShift",
        "tags": [
          "Shifts"
        ],
        "summary": "Delete a shift",
        "description": "Marks a shift as deleted and returns it with `deleted: true`. The shift is named by its\nplatform GUID or by its external identifier (`{namingAuthority}:{value}`).\n\n| State | Condition | Next state | Response |\n|---|---|---|---|\n| not deleted | the shift exists at the context restaurant | deleted | 200 with the shift |\n| deleted | the shift is already deleted | unchanged | 200 with the shift |\n\nDeleting sets `deleted: true`, `deletedDate` and `modifiedDate`. The operation is\nidempotent: deleting a deleted shift answers 200 with the stored record and changes\nnothing, `modifiedDate` included. Of concurrent deletes of one shift, all answer 200 and\nexactly one changes the record and emits a `ShiftDeleted` event.\n\nAn identifier that is neither a GUID nor a well-formed external identifier is 400; one\nthat matches no shift of the context restaurant is 404.\n",
        "security": [
          {
            "oauth2": [
              "labor.shifts:write"
            ]
          }
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/ShiftId"
          },
          {
            "$ref": "#/components/parameters/RestaurantContext"
          },
          {
            "$ref": "#/components/parameters/RequestId"
          }
        ],
        "responses": {
          "200": {
            "description": "The shift is deleted (now or before). The body is the shift.",
            "headers": {
              "X-Request-Id": {
                "$ref": "#/components/headers/X-Request-Id"
              },
              "RateLimit-Limit": {
                "$ref": "#/components/headers/RateLimit-Limit"
              },
              "RateLimit-Remaining": {
                "$ref": "#/components/headers/RateLimit-Remaining"
              },
              "RateLimit-Reset": {
                "$ref": "#/components/headers/RateLimit-Reset"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Shift"
                },
                "examples": {
                  "deleted": {
                    "$ref": "#/components/examples/DeletedShift"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/DeleteShiftBadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/ShiftNotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          },
          "429": {
            "$ref": "#/components/responses/TooManyRequests"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/ServiceUnavailable"
          }
        }
      }
    },
    "/restaurants/v1/restaurants/{restaurantGUID}": {
      "get": {
        "operationId": "getRestaurant",
        "tags": [
          "Restaurants"
        ],
        "summary": "Get a restaurant",
        "description": "Returns the configuration of the context restaurant.\n\nThe answer is 404 `RESTAURANT_NOT_FOUND` when `restaurantGUID` is not a GUID, when it names\nanother restaurant than the one in `Platform-Restaurant-External-ID`, when no such\nrestaurant exists, or when the restaurant is archived (`general.archived: true`) and\n`includeArchived` is not `true`.\n",
        "security": [
          {
            "oauth2": [
              "restaurants:read"
            ]
          }
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/RestaurantGuid"
          },
          {
            "$ref": "#/components/parameters/IncludeArchived"
          },
          {
            "$ref": "#/components/parameters/RestaurantContext"
          },
          {
            "$ref": "#/components/parameters/RequestId"
          }
        ],
        "responses": {
          "200": {
            "description": "The restaurant's configuration.",
            "headers": {
              "X-Request-Id": {
                "$ref": "#/components/headers/X-Request-Id"
              },
              "RateLimit-Limit": {
                "$ref": "#/components/headers/RateLimit-Limit"
              },
              "RateLimit-Remaining": {
                "$ref": "#/components/headers/RateLimit-Remaining"
              },
              "RateLimit-Reset": {
                "$ref": "#/components/headers/RateLimit-Reset"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RestaurantInfo"
                },
                "examples": {
                  "restaurant": {
                    "$ref": "#/components/examples/Restaurant"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/GetRestaurantBadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/RestaurantNotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          },
          "429": {
            "$ref": "#/components/responses/TooManyRequests"
          },
          "500": {
            "$ref": "#/components/responses/InternalError"
          },
          "503": {
            "$ref": "#/components/responses/ServiceUnavailable"
          }
        }
      }
    }
  },
  "webhooks": {
    "employee.archived": {
      "post": {
        "operationId": "employeeArchivedWebhook",
        "tags": [
          "Webhooks"
        ],
        "summary": "An employee was archived",
        "description": "Sent once an employee is archived (`archiveEmployee` that changed the record; archiving an archived employee sends nothing). `data.record` is the employee as `archiveEmployee` answered it.\n\nSent to each configured receiver as a Standard Webhooks delivery: see the `webhook-id`,\n`webhook-timestamp` and `webhook-signature` headers. A 2xx answer acknowledges it; any\nother answer, a refused connection or no answer within 5 seconds is retried with\nexponential backoff (1 s, doubling, at most 1 h, with jitter), with the same\n`webhook-id` and the same body, until acknowledged or, past the attempts or age the\nservice is configured with (20 attempts or 24 hours by default), dead-lettered, to be\nre-driven by its operator. Delivery is at least once: de-duplicate on `webhook-id`.\nEvents of one record (one employee, one shift) arrive in the order of their changes;\na later event of a record is not sent before every earlier one was acknowledged.\n",
        "security": [],
        "parameters": [
          {
            "$ref": "#/components/parameters/WebhookId"
          },
          {
            "$ref": "#/components/parameters/WebhookTimestamp"
          },
          {
            "$ref": "#/components/parameters/WebhookSignature"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EmployeeArchivedWebhook"
              },
              "examples": {
                "event": {
                  "$ref": "#/components/examples/EmployeeArchivedWebhookExample"
                }
              }
            }
          }
        },
        "responses": {
          "2XX": {
            "description": "Acknowledged; the delivery is done. The answer's body is ignored."
          },
          "default": {
            "description": "Not acknowledged; the delivery is retried."
          }
        }
      }
    },
    "employee.unarchived": {
      "post": {
        "operationId": "employeeUnarchivedWebhook",
        "tags": [
          "Webhooks"
        ],
        "summary": "An employee was unarchived",
        "description": "Sent once an archived employee is unarchived. `data.record` is the employee as `unarchiveEmployee` answered it.\n\nSent to each configured receiver as a Standard Webhooks delivery: see the `webhook-id`,\n`webhook-timestamp` and `webhook-signature` headers. A 2xx answer acknowledges it; any\nother answer, a refused connection or no answer within 5 seconds is retried with\nexponential backoff (1 s, doubling, at most 1 h, with jitter), with the same\n`webhook-id` and the same body, until acknowledged or, past the attempts or age the\nservice is configured with (20 attempts or 24 hours by default), dead-lettered, to be\nre-driven by its operator. Delivery is at least once: de-duplicate on `webhook-id`.\nEvents of one record (one employee, one shift) arrive in the order of their changes;\na later event of a record is not sent before every earlier one was acknowledged.\n",
        "security": [],
        "parameters": [
          {
            "$ref": "#/components/parameters/WebhookId"
          },
          {
            "$ref": "#/components/parameters/WebhookTimestamp"
          },
          {
            "$ref": "#/components/parameters/WebhookSignature"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EmployeeUnarchivedWebhook"
              },
              "examples": {
                "event": {
                  "$ref": "#/components/examples/EmployeeUnarchivedWebhookExample"
                }
              }
            }
          }
        },
        "responses": {
          "2XX": {
            "description": "Acknowledged; the delivery is done. The answer's body is ignored."
          },
          "default": {
            "description": "Not acknowledged; the delivery is retried."
          }
        }
      }
    },
    "shift.deleted": {
      "post": {
        "operationId": "shiftDeletedWebhook",
        "tags": [
          "Webhooks"
        ],
        "summary": "A shift was deleted",
        "description": "Sent once a shift is deleted (deleting a deleted shift sends nothing). `data.record` is the shift as `deleteShift` answered it.\n\nSent to each configured receiver as a Standard Webhooks delivery: see the `webhook-id`,\n`webhook-timestamp` and `webhook-signature` headers. A 2xx answer acknowledges it; any\nother answer, a refused connection or no answer within 5 seconds is retried with\nexponential backoff (1 s, doubling, at most 1 h, with jitter), with the same\n`webhook-id` and the same body, until acknowledged or, past the attempts or age the\nservice is configured with (20 attempts or 24 hours by default), dead-lettered, to be\nre-driven by its operator. Delivery is at least once: de-duplicate on `webhook-id`.\nEvents of one record (one employee, one shift) arrive in the order of their changes;\na later event of a record is not sent before every earlier one was acknowledged.\n",
        "security": [],
        "parameters": [
          {
            "$ref": "#/components/parameters/WebhookId"
          },
          {
            "$ref": "#/components/parameters/WebhookTimestamp"
          },
          {
            "$ref": "#/components/parameters/WebhookSignature"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ShiftDeletedWebhook"
              },
              "examples": {
                "event": {
                  "$ref": "#/components/examples/ShiftDeletedWebhookExample"
                }
              }
            }
          }
        },
        "responses": {
          "2XX": {
            "description": "Acknowledged; the delivery is done. The answer's body is ignored."
          },
          "default": {
            "description": "Not acknowledged; the delivery is retried."
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "oauth2": {
        "type": "oauth2",
        "description": "OAuth 2.0 bearer tokens (RFC 6750): every request carries `Authorization: Bearer <token>`.\nThe service is a resource server. Tokens are JWTs; it checks the signature against its\nconfigured key (JWKS URL, PEM public key or HS256 secret), the algorithm allow-list, `exp`,\n`nbf`, `iss` and `aud`. The `scope` claim (space-separated) must hold the operation's scope,\nand the `restaurants` claim (an array of restaurant GUIDs, or `\"*\"` for all) must hold the\ncontext restaurant.\n\n- Missing, malformed, expired or badly signed token: 401 with\n  `WWW-Authenticate: Bearer error=\"invalid_token\"`.\n- Valid token without the operation's scope, or without the context restaurant: 403 with\n  `WWW-Authenticate: Bearer error=\"insufficient_scope\"`.\n\nThe reference server can offer a development token endpoint in the platform's style\n(off unless enabled): `POST /authentication/v1/authentication/login` with the JSON body\n`{ \"clientId\", \"clientSecret\", \"userAccessType\": \"MACHINE_CLIENT\" }`, answering\n`{ \"token\": { \"tokenType\": \"Bearer\", \"accessToken\", \"expiresIn\", \"scope\" }, \"status\": \"SUCCESS\" }`.\n",
        "flows": {
          "clientCredentials": {
            "tokenUrl": "http://127.0.0.1:8080/authentication/v1/authentication/login",
            "scopes": {
              "labor.employees:write": "Archive and unarchive employees.",
              "labor.shifts:write": "Delete shifts.",
              "restaurants:read": "Read restaurant configuration."
            }
          }
        }
      }
    },
    "parameters": {
      "EmployeeGuid": {
        "name": "employeeId",
        "in": "path",
        "required": true,
        "description": "Platform GUID of the employee (any letter case). Anything else is 400.",
        "schema": {
          "$ref": "#/components/schemas/GuidInput"
        },
        "example": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d"
      },
      "EmployeeId": {
        "name": "employeeId",
        "in": "path",
        "required": true,
        "description": "Platform GUID of the employee, or its external identifier `{namingAuthority}:{value}`\n(percent-encode reserved characters). A value that parses as a GUID is a GUID; anything\nthat is neither is 400.\n",
        "schema": {
          "$ref": "#/components/schemas/RecordIdInput"
        },
        "examples": {
          "guid": {
            "summary": "By platform GUID",
            "value": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d"
          },
          "externalId": {
            "summary": "By external identifier",
            "value": "PAYROLL:10042"
          }
        }
      },
      "ShiftId": {
        "name": "shiftId",
        "in": "path",
        "required": true,
        "description": "Platform GUID of the shift, or its external identifier `{namingAuthority}:{value}`\n(percent-encode reserved characters). A value that parses as a GUID is a GUID; anything\nthat is neither is 400.\n",
        "schema": {
          "$ref": "#/components/schemas/RecordIdInput"
        },
        "examples": {
          "guid": {
            "summary": "By platform GUID",
            "value": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
          },
          "externalId": {
            "summary": "By external identifier",
            "value": "SCHEDULER:shift-20260301-0042"
          }
        }
      },
      "RestaurantGuid": {
        "name": "restaurantGUID",
        "in": "path",
        "required": true,
        "description": "Platform GUID of the restaurant; it must be the context restaurant. Any other value,\nincluding one that is not a GUID, is 404 (not 400).\n",
        "schema": {
          "type": "string"
        },
        "example": "b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b"
      },
      "IncludeArchived": {
        "name": "includeArchived",
        "in": "query",
        "required": false,
        "description": "When `true`, an archived restaurant is returned; otherwise it is 404. Only `true` and `false` are accepted.",
        "schema": {
          "type": "boolean",
          "default": false
        },
        "example": true
      },
      "RestaurantContext": {
        "name": "Platform-Restaurant-External-ID",
        "in": "header",
        "required": true,
        "description": "Platform GUID of the restaurant that is the context of the operation. Missing or not a GUID\nis 400. A restaurant the token may not act for is 403.\n",
        "schema": {
          "$ref": "#/components/schemas/GuidInput"
        },
        "example": "b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b"
      },
      "WebhookId": {
        "name": "webhook-id",
        "in": "header",
        "required": true,
        "description": "The event's id (a UUID): the same on every retry of the event and for every receiver. A\nreceiver that gets an id it has already processed acknowledges it and does nothing else.\n",
        "schema": {
          "type": "string",
          "format": "uuid"
        },
        "example": "0d6c5e4f-3a2b-4c1d-9e8f-7a6b5c4d3e2f"
      },
      "WebhookTimestamp": {
        "name": "webhook-timestamp",
        "in": "header",
        "required": true,
        "description": "When this attempt was sent, in seconds since the Unix epoch (it differs between retries).\nRefuse a delivery whose timestamp is more than a few minutes from your clock (replays).\n",
        "schema": {
          "type": "string",
          "pattern": "^[0-9]+$"
        },
        "example": "1772382045"
      },
      "WebhookSignature": {
        "name": "webhook-signature",
        "in": "header",
        "required": true,
        "description": "`v1,` and the base64 HMAC-SHA256, keyed with the secret's bytes (the base64 after\n`whsec_`), of `{webhook-id}.{webhook-timestamp}.{body}` (the body as received, byte for\nbyte). Several space-separated signatures may come (while a secret is rotated); one\nmatching is enough. The `standardwebhooks` libraries verify all of this.\n",
        "schema": {
          "type": "string",
          "pattern": "^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$"
        },
        "example": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="
      },
      "RequestId": {
        "name": "X-Request-Id",
        "in": "header",
        "required": false,
        "description": "A request id of the client's choosing, reused in the response's `X-Request-Id` and in the\nservice's logs when it is printable ASCII of at most 128 characters; any other value is\nreplaced by a generated id (never rejected).\n",
        "schema": {
          "type": "string"
        },
        "example": "4f1c2d3e-checkout-retry-2"
      }
    },
    "headers": {
      "X-Request-Id": {
        "description": "The id of this request, as in the error body's `requestId` and in the service's logs.",
        "required": true,
        "schema": {
          "type": "string",
          "minLength": 1,
          "maxLength": 128
        },
        "example": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
      },
      "RateLimit-Limit": {
        "description": "The request quota of the rate-limit window closest to running out, or on a 429 of the window\nthat refused (IETF RateLimit header fields, draft 6).\n",
        "required": false,
        "schema": {
          "type": "integer",
          "minimum": 0
        },
        "example": 10000
      },
      "RateLimit-Remaining": {
        "description": "Requests left in that window.",
        "required": false,
        "schema": {
          "type": "integer",
          "minimum": 0
        },
        "example": 9987
      },
      "RateLimit-Reset": {
        "description": "Seconds until that window resets.",
        "required": false,
        "schema": {
          "type": "integer",
          "minimum": 0
        },
        "example": 812
      },
      "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "required": true,
        "schema": {
          "type": "integer",
          "minimum": 0
        },
        "example": 1
      },
      "WWW-Authenticate": {
        "description": "The Bearer challenge of RFC 6750, with `error=\"invalid_token\"` (401) or `error=\"insufficient_scope\"` (403).",
        "required": true,
        "schema": {
          "type": "string"
        },
        "example": "Bearer realm=\"workforce-kit\", error=\"invalid_token\", error_description=\"The access token has expired\""
      },
      "Allow": {
        "description": "The methods the path supports.",
        "required": true,
        "schema": {
          "type": "string"
        },
        "example": "PUT"
      }
    },
    "responses": {
      "UnarchiveEmployeeBadRequest": {
        "description": "`EMPLOYEE_NOT_ARCHIVED`: the employee is not archived (nothing changes).\n`VALIDATION_FAILED`: `employeeId` is not a GUID, or the context header is missing or not a GUID.\n`MALFORMED_JSON`: the body is not JSON.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 400
                    },
                    "code": {
                      "enum": [
                        "EMPLOYEE_NOT_ARCHIVED",
                        "VALIDATION_FAILED",
                        "MALFORMED_JSON"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "notArchived": {
                "$ref": "#/components/examples/EmployeeNotArchivedProblem"
              },
              "validation": {
                "$ref": "#/components/examples/EmployeeIdValidationProblem"
              },
              "malformedJson": {
                "$ref": "#/components/examples/MalformedJsonProblem"
              }
            }
          }
        }
      },
      "ArchiveEmployeeBadRequest": {
        "description": "`VALIDATION_FAILED`: `employeeId` is neither a GUID nor a well-formed external identifier,\nor the context header is missing or not a GUID.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 400
                    },
                    "code": {
                      "enum": [
                        "VALIDATION_FAILED"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "validation": {
                "$ref": "#/components/examples/ArchiveEmployeeIdValidationProblem"
              }
            }
          }
        }
      },
      "DeleteShiftBadRequest": {
        "description": "`VALIDATION_FAILED`: `shiftId` is neither a GUID nor a well-formed external identifier, or\nthe context header is missing or not a GUID.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 400
                    },
                    "code": {
                      "enum": [
                        "VALIDATION_FAILED"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "malformedShiftId": {
                "$ref": "#/components/examples/ShiftIdValidationProblem"
              }
            }
          }
        }
      },
      "GetRestaurantBadRequest": {
        "description": "`VALIDATION_FAILED`: the context header is missing or not a GUID, `includeArchived` is not\n`true` or `false`, or the query names an unknown parameter.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 400
                    },
                    "code": {
                      "enum": [
                        "VALIDATION_FAILED"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "includeArchived": {
                "$ref": "#/components/examples/IncludeArchivedValidationProblem"
              }
            }
          }
        }
      },
      "EmployeeNotFound": {
        "description": "`EMPLOYEE_NOT_FOUND`: no employee with this GUID (or, for archive, this external identifier) belongs to the context restaurant.",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 404
                    },
                    "code": {
                      "enum": [
                        "EMPLOYEE_NOT_FOUND"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "notFound": {
                "$ref": "#/components/examples/EmployeeNotFoundProblem"
              }
            }
          }
        }
      },
      "ShiftNotFound": {
        "description": "`SHIFT_NOT_FOUND`: the identifier matches no shift of the context restaurant.",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 404
                    },
                    "code": {
                      "enum": [
                        "SHIFT_NOT_FOUND"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "notFound": {
                "$ref": "#/components/examples/ShiftNotFoundProblem"
              }
            }
          }
        }
      },
      "RestaurantNotFound": {
        "description": "`RESTAURANT_NOT_FOUND`: `restaurantGUID` is not a GUID, is not the context restaurant, names\nno restaurant, or names an archived one while `includeArchived` is not `true`.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 404
                    },
                    "code": {
                      "enum": [
                        "RESTAURANT_NOT_FOUND"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "notFound": {
                "$ref": "#/components/examples/RestaurantNotFoundProblem"
              }
            }
          }
        }
      },
      "Unauthorized": {
        "description": "`INVALID_TOKEN`: the bearer token is missing, malformed, expired, not yet valid or badly signed.",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          },
          "WWW-Authenticate": {
            "$ref": "#/components/headers/WWW-Authenticate"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 401
                    },
                    "code": {
                      "enum": [
                        "INVALID_TOKEN"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "expired": {
                "$ref": "#/components/examples/InvalidTokenProblem"
              }
            }
          }
        }
      },
      "Forbidden": {
        "description": "`INSUFFICIENT_SCOPE`: the token lacks the operation's scope.\n`RESTAURANT_NOT_PERMITTED`: the token may not act for the context restaurant.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          },
          "WWW-Authenticate": {
            "$ref": "#/components/headers/WWW-Authenticate"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 403
                    },
                    "code": {
                      "enum": [
                        "INSUFFICIENT_SCOPE",
                        "RESTAURANT_NOT_PERMITTED"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "insufficientScope": {
                "$ref": "#/components/examples/InsufficientScopeProblem"
              },
              "restaurantNotPermitted": {
                "$ref": "#/components/examples/RestaurantNotPermittedProblem"
              }
            }
          }
        }
      },
      "MethodNotAllowed": {
        "description": "`METHOD_NOT_ALLOWED`: the path exists but not with this method; `Allow` lists the methods it supports.",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          },
          "Allow": {
            "$ref": "#/components/headers/Allow"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 405
                    },
                    "code": {
                      "enum": [
                        "METHOD_NOT_ALLOWED"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "methodNotAllowed": {
                "$ref": "#/components/examples/MethodNotAllowedProblem"
              }
            }
          }
        }
      },
      "PayloadTooLarge": {
        "description": "`PAYLOAD_TOO_LARGE`: the request body is over 16 KiB.",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 413
                    },
                    "code": {
                      "enum": [
                        "PAYLOAD_TOO_LARGE"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "tooLarge": {
                "$ref": "#/components/examples/PayloadTooLargeProblem"
              }
            }
          }
        }
      },
      "UnsupportedMediaType": {
        "description": "`UNSUPPORTED_MEDIA_TYPE`: `Content-Type` is missing or is not `application/json`.",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 415
                    },
                    "code": {
                      "enum": [
                        "UNSUPPORTED_MEDIA_TYPE"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "unsupported": {
                "$ref": "#/components/examples/UnsupportedMediaTypeProblem"
              }
            }
          }
        }
      },
      "TooManyRequests": {
        "description": "`RATE_LIMITED`: the rate limit of the restaurant context is spent; retry after `Retry-After` seconds.",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          },
          "Retry-After": {
            "$ref": "#/components/headers/Retry-After"
          },
          "RateLimit-Limit": {
            "$ref": "#/components/headers/RateLimit-Limit"
          },
          "RateLimit-Remaining": {
            "$ref": "#/components/headers/RateLimit-Remaining"
          },
          "RateLimit-Reset": {
            "$ref": "#/components/headers/RateLimit-Reset"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 429
                    },
                    "code": {
                      "enum": [
                        "RATE_LIMITED"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "rateLimited": {
                "$ref": "#/components/examples/RateLimitedProblem"
              }
            }
          }
        }
      },
      "InternalError": {
        "description": "`INTERNAL_ERROR`: an unexpected error. The body holds only a generic message and the\n`requestId` that support can look up in the service's logs.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 500
                    },
                    "code": {
                      "enum": [
                        "INTERNAL_ERROR"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "internal": {
                "$ref": "#/components/examples/InternalErrorProblem"
              }
            }
          }
        }
      },
      "ServiceUnavailable": {
        "description": "`STORAGE_UNAVAILABLE`: the store cannot be reached; nothing was changed.\n`REQUEST_TIMEOUT`: the request was not answered within the request timeout (the connection\nthen closes). A change already under way when the time ran out may still complete; a\nrequest still being received or checked (a slow body, a slow token check) changes\nnothing. Retrying `deleteShift` or `archiveEmployee` is safe (they are idempotent); a\nretried unarchive answers 400 if the first one completed.\n`WRITE_CONTENTION`: the record was changed by other requests on every attempt to change\nit; nothing was changed by this one.\n`AUTH_UNAVAILABLE`: the keys to verify the token could not be fetched (JWKS unreachable);\nnothing was changed.\nRetry after `Retry-After` seconds.\n",
        "headers": {
          "X-Request-Id": {
            "$ref": "#/components/headers/X-Request-Id"
          },
          "Retry-After": {
            "$ref": "#/components/headers/Retry-After"
          }
        },
        "content": {
          "application/problem+json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Problem"
                },
                {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": 503
                    },
                    "code": {
                      "enum": [
                        "STORAGE_UNAVAILABLE",
                        "REQUEST_TIMEOUT",
                        "WRITE_CONTENTION",
                        "AUTH_UNAVAILABLE"
                      ]
                    }
                  }
                }
              ]
            },
            "examples": {
              "storageUnavailable": {
                "$ref": "#/components/examples/StorageUnavailableProblem"
              }
            }
          }
        }
      }
    },
    "schemas": {
      "GuidInput": {
        "description": "A platform GUID as a client may send it (8-4-4-4-12 hex, any letter case).",
        "type": "string",
        "format": "uuid",
        "pattern": "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
      },
      "Guid": {
        "description": "A platform GUID as the service returns it (8-4-4-4-12 hex, lower case).",
        "type": "string",
        "format": "uuid",
        "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        "examples": [
          "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d"
        ]
      },
      "RecordIdInput": {
        "description": "A platform GUID (any letter case) or an external identifier `{namingAuthority}:{value}`.",
        "type": "string",
        "pattern": "^(?:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[A-Za-z0-9_-]{1,16}:[^\\s\\x00-\\x1F\\x7F-\\x9F\\uD800-\\uDFFF]{1,256})$"
      },
      "ExternalId": {
        "description": "An external identifier `{namingAuthority}:{value}`: the authority 1 to 16 letters, digits,\n`-` or `_`; the value 1 to 256 characters with no whitespace, no control characters and no\nunpaired surrogates (which have no UTF-8 form).\n",
        "type": "string",
        "pattern": "^[A-Za-z0-9_-]{1,16}:[^\\s\\x00-\\x1F\\x7F-\\x9F\\uD800-\\uDFFF]{1,256}$",
        "examples": [
          "SCHEDULER:shift-20260301-0042"
        ]
      },
      "Timestamp": {
        "description": "An ISO 8601 date-time in UTC with milliseconds.",
        "type": "string",
        "format": "date-time",
        "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$",
        "examples": [
          "2026-03-01T17:00:00.000Z"
        ]
      },
      "TimeOfDay": {
        "description": "A local time of day, `HH:mm:ss.SSS`.",
        "type": "string",
        "pattern": "^(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d\\.\\d{3}$",
        "examples": [
          "17:30:00.000"
        ]
      },
      "EmptyBody": {
        "description": "The unarchive request has no meaningful body; any JSON value is accepted and ignored."
      },
      "Reference": {
        "description": "A reference to another record of the platform.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "guid",
          "entityType"
        ],
        "properties": {
          "guid": {
            "$ref": "#/components/schemas/Guid"
          },
          "entityType": {
            "description": "The type of the referenced record, `RestaurantJob` for a job and `RestaurantUser` for an employee.",
            "type": "string",
            "examples": [
              "RestaurantJob"
            ]
          },
          "externalId": {
            "$ref": "#/components/schemas/ExternalId"
          }
        }
      },
      "WageOverride": {
        "description": "A wage for one job that overrides the job's default wage for this employee.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "jobReference",
          "wage"
        ],
        "properties": {
          "jobReference": {
            "$ref": "#/components/schemas/Reference"
          },
          "wage": {
            "description": "Hourly wage in the restaurant's currency.",
            "type": "number",
            "minimum": 0
          }
        }
      },
      "Employee": {
        "description": "An employee of a restaurant. `deleted` is the archived state. The employee's point-of-sale\npasscode is a credential: the service stores it but never returns it (the platform shows\nit only when an employee is created, which this API does not do).\n",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "guid",
          "entityType",
          "createdDate",
          "modifiedDate",
          "deleted"
        ],
        "properties": {
          "guid": {
            "$ref": "#/components/schemas/Guid"
          },
          "entityType": {
            "type": "string",
            "const": "RestaurantUser"
          },
          "externalId": {
            "$ref": "#/components/schemas/ExternalId"
          },
          "createdDate": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "modifiedDate": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "deletedDate": {
            "description": "When the employee was archived; present exactly when `deleted` is true.",
            "$ref": "#/components/schemas/Timestamp"
          },
          "firstName": {
            "type": "string"
          },
          "chosenName": {
            "description": "The name the employee goes by, when it differs from `firstName`.",
            "type": "string"
          },
          "lastName": {
            "type": "string"
          },
          "email": {
            "type": "string",
            "format": "email"
          },
          "phoneNumber": {
            "type": "string"
          },
          "phoneNumberCountryCode": {
            "description": "International calling code of `phoneNumber`, digits only (`1` for the US).",
            "type": "string",
            "pattern": "^\\d{1,4}$"
          },
          "externalEmployeeId": {
            "description": "The employee's id in an external payroll or HR system.",
            "type": "string"
          },
          "deleted": {
            "description": "`true` while the employee is archived.",
            "type": "boolean"
          },
          "jobReferences": {
            "description": "The jobs assigned to the employee (`entityType` `RestaurantJob`).",
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Reference"
            }
          },
          "wageOverrides": {
            "description": "Per-job wages that override the jobs' default wages.",
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/WageOverride"
            }
          },
          "v2EmployeeGuid": {
            "description": "The employee's GUID in the platform's second-generation employee service.",
            "$ref": "#/components/schemas/Guid"
          }
        },
        "if": {
          "required": [
            "deletedDate"
          ],
          "properties": {
            "deletedDate": true
          }
        },
        "then": {
          "title": "archived",
          "properties": {
            "deleted": {
              "const": true
            }
          }
        },
        "else": {
          "title": "active",
          "properties": {
            "deleted": {
              "const": false
            }
          }
        }
      },
      "ScheduleConfig": {
        "description": "The clock-in and clock-out window of a shift: minutes before and after the shift's `inDate`\nand `outDate` within which the employee may clock in and clock out.\n",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "guid": {
            "$ref": "#/components/schemas/Guid"
          },
          "minBeforeClockIn": {
            "description": "Minutes before `inDate` from which clock-in is allowed.",
            "type": "integer",
            "minimum": 0
          },
          "minAfterClockIn": {
            "description": "Minutes after `inDate` until which clock-in is allowed.",
            "type": "integer",
            "minimum": 0
          },
          "minBeforeClockOut": {
            "description": "Minutes before `outDate` from which clock-out is allowed.",
            "type": "integer",
            "minimum": 0
          },
          "minAfterClockOut": {
            "description": "Minutes after `outDate` until which clock-out is allowed.",
            "type": "integer",
            "minimum": 0
          }
        }
      },
      "Shift": {
        "description": "A schedule shift of one employee in one job.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "guid",
          "entityType",
          "createdDate",
          "modifiedDate",
          "deleted"
        ],
        "properties": {
          "guid": {
            "$ref": "#/components/schemas/Guid"
          },
          "entityType": {
            "type": "string",
            "const": "Shift"
          },
          "externalId": {
            "$ref": "#/components/schemas/ExternalId"
          },
          "createdDate": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "modifiedDate": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "deletedDate": {
            "description": "When the shift was deleted; present exactly when `deleted` is true.",
            "$ref": "#/components/schemas/Timestamp"
          },
          "deleted": {
            "description": "`true` after the shift is deleted.",
            "type": "boolean"
          },
          "jobReference": {
            "description": "The job worked in this shift (`entityType` `RestaurantJob`).",
            "$ref": "#/components/schemas/Reference"
          },
          "employeeReference": {
            "description": "The employee who works this shift (`entityType` `RestaurantUser`).",
            "$ref": "#/components/schemas/Reference"
          },
          "inDate": {
            "description": "Scheduled start of the shift.",
            "$ref": "#/components/schemas/Timestamp"
          },
          "outDate": {
            "description": "Scheduled end of the shift.",
            "$ref": "#/components/schemas/Timestamp"
          },
          "scheduleConfig": {
            "$ref": "#/components/schemas/ScheduleConfig"
          }
        },
        "if": {
          "required": [
            "deletedDate"
          ],
          "properties": {
            "deletedDate": true
          }
        },
        "then": {
          "title": "deleted",
          "properties": {
            "deleted": {
              "const": true
            }
          }
        },
        "else": {
          "title": "active",
          "properties": {
            "deleted": {
              "const": false
            }
          }
        }
      },
      "General": {
        "description": "General facts about a restaurant.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "name",
          "archived"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "locationName": {
            "description": "The name of this location, when the restaurant has several.",
            "type": "string"
          },
          "locationCode": {
            "description": "A short code of this location.",
            "type": "string"
          },
          "description": {
            "type": "string"
          },
          "timeZone": {
            "description": "IANA time zone name, such as `America/New_York`.",
            "type": "string",
            "pattern": "^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$"
          },
          "closeoutHour": {
            "description": "The hour (0 to 23, local time) at which the business day ends.",
            "type": "integer",
            "minimum": 0,
            "maximum": 23
          },
          "managementGroupGuid": {
            "description": "GUID of the management group the restaurant belongs to.",
            "$ref": "#/components/schemas/Guid"
          },
          "currencyCode": {
            "description": "ISO 4217 currency code.",
            "type": "string",
            "pattern": "^[A-Z]{3}$"
          },
          "firstBusinessDate": {
            "description": "The first business date of the restaurant as an integer `yyyyMMdd`.",
            "type": "integer",
            "minimum": 19000101,
            "maximum": 99991231
          },
          "archived": {
            "description": "`true` when the restaurant is archived; it is then found only with `includeArchived=true`.",
            "type": "boolean"
          }
        }
      },
      "Urls": {
        "description": "Web addresses of the restaurant.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "website": {
            "type": "string",
            "format": "uri"
          },
          "facebook": {
            "type": "string",
            "format": "uri"
          },
          "twitter": {
            "type": "string",
            "format": "uri"
          },
          "orderOnline": {
            "type": "string",
            "format": "uri"
          },
          "purchaseGiftCard": {
            "type": "string",
            "format": "uri"
          },
          "checkGiftCard": {
            "type": "string",
            "format": "uri"
          }
        }
      },
      "Location": {
        "description": "The restaurant's address and position.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "address1": {
            "type": "string"
          },
          "address2": {
            "type": "string"
          },
          "city": {
            "type": "string"
          },
          "stateCode": {
            "description": "State or province code, such as `MA`.",
            "type": "string"
          },
          "administrativeArea": {
            "description": "State, province or region name.",
            "type": "string"
          },
          "zipCode": {
            "type": "string"
          },
          "country": {
            "description": "ISO 3166-1 alpha-2 country code.",
            "type": "string",
            "pattern": "^[A-Z]{2}$"
          },
          "phone": {
            "type": "string"
          },
          "phoneCountryCode": {
            "description": "International calling code of `phone`, digits only.",
            "type": "string",
            "pattern": "^\\d{1,4}$"
          },
          "latitude": {
            "type": "number",
            "minimum": -90,
            "maximum": 90
          },
          "longitude": {
            "type": "number",
            "minimum": -180,
            "maximum": 180
          }
        }
      },
      "Service": {
        "description": "A meal service within a day schedule, such as lunch or dinner.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "name": {
            "type": "string"
          },
          "hours": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "startTime": {
                "$ref": "#/components/schemas/TimeOfDay"
              },
              "endTime": {
                "$ref": "#/components/schemas/TimeOfDay"
              }
            }
          },
          "overnight": {
            "description": "`true` when the service ends after midnight, on the next calendar day.",
            "type": "boolean"
          }
        }
      },
      "DaySchedule": {
        "description": "The opening hours and services of one kind of day.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "scheduleName": {
            "type": "string"
          },
          "services": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Service"
            }
          },
          "openTime": {
            "$ref": "#/components/schemas/TimeOfDay"
          },
          "closeTime": {
            "$ref": "#/components/schemas/TimeOfDay"
          }
        }
      },
      "WeekSchedule": {
        "description": "For each day of the week, the key in `daySchedules` of that day's schedule; a day that is\nabsent is closed.\n",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "monday": {
            "type": "string"
          },
          "tuesday": {
            "type": "string"
          },
          "wednesday": {
            "type": "string"
          },
          "thursday": {
            "type": "string"
          },
          "friday": {
            "type": "string"
          },
          "saturday": {
            "type": "string"
          },
          "sunday": {
            "type": "string"
          }
        }
      },
      "Schedules": {
        "description": "The restaurant's opening schedules.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "daySchedules": {
            "description": "Day schedules keyed by their identifier, plus an optional string entry `identifier`\n(an opaque identifier of the whole schedule set, kept for compatibility with the\nplatform).\n",
            "type": "object",
            "propertyNames": {
              "minLength": 1,
              "maxLength": 64
            },
            "properties": {
              "identifier": {
                "type": "string"
              }
            },
            "additionalProperties": {
              "$ref": "#/components/schemas/DaySchedule"
            }
          },
          "weekSchedule": {
            "$ref": "#/components/schemas/WeekSchedule"
          }
        }
      },
      "Delivery": {
        "description": "Delivery settings.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "enabled": {
            "type": "boolean"
          },
          "minimum": {
            "description": "Minimum order amount for delivery, in the restaurant's currency.",
            "type": "number",
            "minimum": 0
          },
          "area": {
            "description": "The delivery area, as an encoded polyline.",
            "type": "string"
          }
        }
      },
      "PaymentOptions": {
        "description": "Which payment methods online orders accept.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "delivery": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "cash": {
                "type": "boolean"
              },
              "ccSameDay": {
                "description": "Card payment for orders due the same day.",
                "type": "boolean"
              },
              "ccFuture": {
                "description": "Card payment for orders scheduled for a later day.",
                "type": "boolean"
              }
            }
          },
          "takeout": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "cash": {
                "type": "boolean"
              },
              "ccSameDay": {
                "type": "boolean"
              },
              "ccFuture": {
                "type": "boolean"
              },
              "ccInStore": {
                "description": "Card payment at pickup.",
                "type": "boolean"
              }
            }
          },
          "ccTip": {
            "description": "Whether a tip may be added to card payments.",
            "type": "boolean"
          }
        }
      },
      "OnlineOrdering": {
        "description": "Online ordering settings.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "enabled": {
            "type": "boolean"
          },
          "scheduling": {
            "description": "Whether orders may be scheduled for later.",
            "type": "boolean"
          },
          "specialRequests": {
            "description": "Whether guests may add special requests to an order.",
            "type": "boolean"
          },
          "specialRequestsMessage": {
            "type": "string"
          },
          "paymentOptions": {
            "$ref": "#/components/schemas/PaymentOptions"
          }
        }
      },
      "PrepTimes": {
        "description": "Preparation and ordering-window times, all in minutes.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "deliveryPrepTime": {
            "type": "number",
            "minimum": 0
          },
          "deliveryTimeAfterOpen": {
            "type": "number",
            "minimum": 0
          },
          "deliveryTimeBeforeClose": {
            "type": "number",
            "minimum": 0
          },
          "takeoutPrepTime": {
            "type": "number",
            "minimum": 0
          },
          "takeoutTimeAfterOpen": {
            "type": "number",
            "minimum": 0
          },
          "takeoutTimeBeforeClose": {
            "type": "number",
            "minimum": 0
          },
          "takeoutThrottlingTime": {
            "type": "number",
            "minimum": 0
          },
          "deliveryThrottlingTime": {
            "type": "number",
            "minimum": 0
          }
        }
      },
      "RestaurantInfo": {
        "description": "The configuration record of a restaurant.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "guid",
          "general"
        ],
        "properties": {
          "guid": {
            "$ref": "#/components/schemas/Guid"
          },
          "general": {
            "$ref": "#/components/schemas/General"
          },
          "urls": {
            "$ref": "#/components/schemas/Urls"
          },
          "location": {
            "$ref": "#/components/schemas/Location"
          },
          "schedules": {
            "$ref": "#/components/schemas/Schedules"
          },
          "delivery": {
            "$ref": "#/components/schemas/Delivery"
          },
          "onlineOrdering": {
            "$ref": "#/components/schemas/OnlineOrdering"
          },
          "prepTimes": {
            "$ref": "#/components/schemas/PrepTimes"
          }
        }
      },
      "EmployeeWebhookData": {
        "description": "What an employee event says.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "restaurantGuid",
          "employeeGuid",
          "occurredAt",
          "requestId",
          "record"
        ],
        "properties": {
          "restaurantGuid": {
            "$ref": "#/components/schemas/Guid"
          },
          "employeeGuid": {
            "$ref": "#/components/schemas/Guid"
          },
          "occurredAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "requestId": {
            "description": "The `X-Request-Id` of the request that made the change.",
            "type": "string"
          },
          "record": {
            "$ref": "#/components/schemas/Employee"
          }
        }
      },
      "ShiftWebhookData": {
        "description": "What a shift event says.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "restaurantGuid",
          "shiftGuid",
          "occurredAt",
          "requestId",
          "record"
        ],
        "properties": {
          "restaurantGuid": {
            "$ref": "#/components/schemas/Guid"
          },
          "shiftGuid": {
            "$ref": "#/components/schemas/Guid"
          },
          "occurredAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "requestId": {
            "description": "The `X-Request-Id` of the request that made the change.",
            "type": "string"
          },
          "record": {
            "$ref": "#/components/schemas/Shift"
          }
        }
      },
      "EmployeeArchivedWebhook": {
        "description": "The body of an `employee.archived` delivery; `data.record` is the employee after the change.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type",
          "timestamp",
          "data"
        ],
        "properties": {
          "type": {
            "type": "string",
            "const": "employee.archived"
          },
          "timestamp": {
            "description": "When the change happened (the same on every retry).",
            "allOf": [
              {
                "$ref": "#/components/schemas/Timestamp"
              }
            ]
          },
          "data": {
            "$ref": "#/components/schemas/EmployeeWebhookData"
          }
        }
      },
      "EmployeeUnarchivedWebhook": {
        "description": "The body of an `employee.unarchived` delivery; `data.record` is the employee after the change.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type",
          "timestamp",
          "data"
        ],
        "properties": {
          "type": {
            "type": "string",
            "const": "employee.unarchived"
          },
          "timestamp": {
            "description": "When the change happened (the same on every retry).",
            "allOf": [
              {
                "$ref": "#/components/schemas/Timestamp"
              }
            ]
          },
          "data": {
            "$ref": "#/components/schemas/EmployeeWebhookData"
          }
        }
      },
      "ShiftDeletedWebhook": {
        "description": "The body of a `shift.deleted` delivery; `data.record` is the shift after the change.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type",
          "timestamp",
          "data"
        ],
        "properties": {
          "type": {
            "type": "string",
            "const": "shift.deleted"
          },
          "timestamp": {
            "description": "When the change happened (the same on every retry).",
            "allOf": [
              {
                "$ref": "#/components/schemas/Timestamp"
              }
            ]
          },
          "data": {
            "$ref": "#/components/schemas/ShiftWebhookData"
          }
        }
      },
      "ProblemCode": {
        "description": "The stable machine-readable code of an error, one per condition. Each response lists the\ncodes it can carry. `INVALID_CLIENT` is the reference server's development login's (a\nwrong client id or secret); no operation of this API answers it.\n",
        "type": "string",
        "enum": [
          "VALIDATION_FAILED",
          "MALFORMED_JSON",
          "EMPLOYEE_NOT_ARCHIVED",
          "INVALID_TOKEN",
          "INVALID_CLIENT",
          "INSUFFICIENT_SCOPE",
          "RESTAURANT_NOT_PERMITTED",
          "NOT_FOUND",
          "EMPLOYEE_NOT_FOUND",
          "SHIFT_NOT_FOUND",
          "RESTAURANT_NOT_FOUND",
          "METHOD_NOT_ALLOWED",
          "PAYLOAD_TOO_LARGE",
          "UNSUPPORTED_MEDIA_TYPE",
          "RATE_LIMITED",
          "INTERNAL_ERROR",
          "STORAGE_UNAVAILABLE",
          "REQUEST_TIMEOUT",
          "WRITE_CONTENTION",
          "AUTH_UNAVAILABLE"
        ]
      },
      "ProblemFieldError": {
        "description": "One offending input of a request that failed validation.",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "path",
          "message"
        ],
        "properties": {
          "path": {
            "description": "Where the input is, as `/params/{name}`, `/query/{name}`, `/headers/{name}` or `/body{pointer}`.",
            "type": "string"
          },
          "message": {
            "type": "string"
          }
        }
      },
      "Problem": {
        "description": "An RFC 9457 problem details document. This service sends no members beyond those listed.\n",
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type",
          "title",
          "status",
          "code",
          "requestId"
        ],
        "properties": {
          "type": {
            "description": "A URI naming the kind of problem; one per `code`.",
            "type": "string",
            "format": "uri"
          },
          "title": {
            "description": "A short summary of the kind of problem; the same for every occurrence.",
            "type": "string"
          },
          "status": {
            "description": "The HTTP status code.",
            "type": "integer",
            "minimum": 400,
            "maximum": 599
          },
          "detail": {
            "description": "What went wrong in this occurrence.",
            "type": "string"
          },
          "instance": {
            "description": "The path of the request.",
            "type": "string"
          },
          "code": {
            "$ref": "#/components/schemas/ProblemCode"
          },
          "requestId": {
            "description": "The id of the request, as in `X-Request-Id`.",
            "type": "string"
          },
          "errors": {
            "description": "The inputs that failed validation (`VALIDATION_FAILED` only).",
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/ProblemFieldError"
            }
          }
        }
      }
    },
    "examples": {
      "UnarchivedEmployee": {
        "summary": "An employee with two jobs and a wage override, just unarchived",
        "value": {
          "guid": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d",
          "entityType": "RestaurantUser",
          "externalId": "PAYROLL:10042",
          "createdDate": "2024-02-12T14:03:11.000Z",
          "modifiedDate": "2026-03-01T16:20:45.123Z",
          "firstName": "Maria",
          "chosenName": "Mari",
          "lastName": "Lopez",
          "email": "maria.lopez@example.com",
          "phoneNumber": "6175550142",
          "phoneNumberCountryCode": "1",
          "externalEmployeeId": "10042",
          "deleted": false,
          "jobReferences": [
            {
              "guid": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
              "entityType": "RestaurantJob",
              "externalId": "POS:line-cook"
            },
            {
              "guid": "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
              "entityType": "RestaurantJob",
              "externalId": "POS:server"
            }
          ],
          "wageOverrides": [
            {
              "jobReference": {
                "guid": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                "entityType": "RestaurantJob",
                "externalId": "POS:line-cook"
              },
              "wage": 21.5
            }
          ],
          "v2EmployeeGuid": "7b3c0d5e-2f4a-4b6c-9d8e-0f1a2b3c4d5e"
        }
      },
      "ArchivedEmployee": {
        "summary": "The same employee, just archived",
        "value": {
          "guid": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d",
          "entityType": "RestaurantUser",
          "externalId": "PAYROLL:10042",
          "createdDate": "2024-02-12T14:03:11.000Z",
          "modifiedDate": "2026-02-27T22:15:00.000Z",
          "deletedDate": "2026-02-27T22:15:00.000Z",
          "firstName": "Maria",
          "chosenName": "Mari",
          "lastName": "Lopez",
          "email": "maria.lopez@example.com",
          "phoneNumber": "6175550142",
          "phoneNumberCountryCode": "1",
          "externalEmployeeId": "10042",
          "deleted": true,
          "jobReferences": [
            {
              "guid": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
              "entityType": "RestaurantJob",
              "externalId": "POS:line-cook"
            },
            {
              "guid": "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
              "entityType": "RestaurantJob",
              "externalId": "POS:server"
            }
          ],
          "wageOverrides": [
            {
              "jobReference": {
                "guid": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                "entityType": "RestaurantJob",
                "externalId": "POS:line-cook"
              },
              "wage": 21.5
            }
          ],
          "v2EmployeeGuid": "7b3c0d5e-2f4a-4b6c-9d8e-0f1a2b3c4d5e"
        }
      },
      "DeletedShift": {
        "summary": "A dinner shift with an external id, deleted",
        "value": {
          "guid": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
          "entityType": "Shift",
          "externalId": "SCHEDULER:shift-20260301-0042",
          "createdDate": "2026-02-20T09:30:00.000Z",
          "modifiedDate": "2026-02-28T11:02:17.481Z",
          "deletedDate": "2026-02-28T11:02:17.481Z",
          "deleted": true,
          "jobReference": {
            "guid": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
            "entityType": "RestaurantJob",
            "externalId": "POS:line-cook"
          },
          "employeeReference": {
            "guid": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d",
            "entityType": "RestaurantUser",
            "externalId": "PAYROLL:10042"
          },
          "inDate": "2026-03-01T21:00:00.000Z",
          "outDate": "2026-03-02T05:00:00.000Z",
          "scheduleConfig": {
            "guid": "3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b",
            "minBeforeClockIn": 15,
            "minAfterClockIn": 10,
            "minBeforeClockOut": 10,
            "minAfterClockOut": 30
          }
        }
      },
      "Restaurant": {
        "summary": "A restaurant with a weekday and a weekend schedule",
        "value": {
          "guid": "b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b",
          "general": {
            "name": "Harbor Street Kitchen",
            "locationName": "Harbor Street",
            "locationCode": "HSK-01",
            "description": "Seafood bistro on the waterfront.",
            "timeZone": "America/New_York",
            "closeoutHour": 4,
            "managementGroupGuid": "c8d9e0f1-a2b3-4c4d-8e5f-6a7b8c9d0e1f",
            "currencyCode": "USD",
            "firstBusinessDate": 20240115,
            "archived": false
          },
          "urls": {
            "website": "https://harborstreetkitchen.example.com",
            "facebook": "https://www.facebook.com/harborstreetkitchen",
            "twitter": "https://twitter.com/harborstkitchen",
            "orderOnline": "https://order.example.com/harbor-street-kitchen",
            "purchaseGiftCard": "https://order.example.com/harbor-street-kitchen/giftcards",
            "checkGiftCard": "https://order.example.com/harbor-street-kitchen/giftcards/balance"
          },
          "location": {
            "address1": "120 Harbor Street",
            "address2": "Suite 2",
            "city": "Boston",
            "stateCode": "MA",
            "administrativeArea": "Massachusetts",
            "zipCode": "02110",
            "country": "US",
            "phone": "6175550123",
            "phoneCountryCode": "1",
            "latitude": 42.3601,
            "longitude": -71.0514
          },
          "schedules": {
            "daySchedules": {
              "identifier": "hsk-2026-spring",
              "weekday": {
                "scheduleName": "Weekday",
                "services": [
                  {
                    "name": "Lunch",
                    "hours": {
                      "startTime": "11:00:00.000",
                      "endTime": "15:00:00.000"
                    },
                    "overnight": false
                  },
                  {
                    "name": "Dinner",
                    "hours": {
                      "startTime": "17:00:00.000",
                      "endTime": "23:00:00.000"
                    },
                    "overnight": false
                  }
                ],
                "openTime": "11:00:00.000",
                "closeTime": "23:00:00.000"
              },
              "weekend": {
                "scheduleName": "Weekend",
                "services": [
                  {
                    "name": "Brunch",
                    "hours": {
                      "startTime": "09:00:00.000",
                      "endTime": "14:00:00.000"
                    },
                    "overnight": false
                  },
                  {
                    "name": "Late night",
                    "hours": {
                      "startTime": "20:00:00.000",
                      "endTime": "02:00:00.000"
                    },
                    "overnight": true
                  }
                ],
                "openTime": "09:00:00.000",
                "closeTime": "02:00:00.000"
              }
            },
            "weekSchedule": {
              "tuesday": "weekday",
              "wednesday": "weekday",
              "thursday": "weekday",
              "friday": "weekday",
              "saturday": "weekend",
              "sunday": "weekend"
            }
          },
          "delivery": {
            "enabled": true,
            "minimum": 25,
            "area": "_p~iF~ps|U_ulLnnqC_mqNvxq`@"
          },
          "onlineOrdering": {
            "enabled": true,
            "scheduling": true,
            "specialRequests": true,
            "specialRequestsMessage": "Tell us about any allergies.",
            "paymentOptions": {
              "delivery": {
                "cash": false,
                "ccSameDay": true,
                "ccFuture": true
              },
              "takeout": {
                "cash": true,
                "ccSameDay": true,
                "ccFuture": true,
                "ccInStore": true
              },
              "ccTip": true
            }
          },
          "prepTimes": {
            "deliveryPrepTime": 45,
            "deliveryTimeAfterOpen": 30,
            "deliveryTimeBeforeClose": 30,
            "takeoutPrepTime": 20,
            "takeoutTimeAfterOpen": 15,
            "takeoutTimeBeforeClose": 15,
            "takeoutThrottlingTime": 10,
            "deliveryThrottlingTime": 15
          }
        }
      },
      "EmployeeNotArchivedProblem": {
        "summary": "The employee is not archived",
        "value": {
          "type": "https://workforce-kit.dev/problems/employee-not-archived",
          "title": "Employee is not archived",
          "status": 400,
          "detail": "Employee 6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d is not archived.",
          "instance": "/labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/unarchive",
          "code": "EMPLOYEE_NOT_ARCHIVED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "EmployeeIdValidationProblem": {
        "summary": "The employee id is not a GUID",
        "value": {
          "type": "https://workforce-kit.dev/problems/validation-failed",
          "title": "Request validation failed",
          "status": 400,
          "detail": "The request has 1 invalid input.",
          "instance": "/labor/v1/employees/42/unarchive",
          "code": "VALIDATION_FAILED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A",
          "errors": [
            {
              "path": "/params/employeeId",
              "message": "must be a platform GUID"
            }
          ]
        }
      },
      "ArchiveEmployeeIdValidationProblem": {
        "summary": "The employee id is neither a GUID nor an external identifier",
        "value": {
          "type": "https://workforce-kit.dev/problems/validation-failed",
          "title": "Request validation failed",
          "status": 400,
          "detail": "The request has 1 invalid input.",
          "instance": "/labor/v1/employees/10042",
          "code": "VALIDATION_FAILED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A",
          "errors": [
            {
              "path": "/params/employeeId",
              "message": "must be a platform GUID or an external identifier {namingAuthority}:{value}"
            }
          ]
        }
      },
      "ShiftIdValidationProblem": {
        "summary": "The shift id is neither a GUID nor an external identifier",
        "value": {
          "type": "https://workforce-kit.dev/problems/validation-failed",
          "title": "Request validation failed",
          "status": 400,
          "detail": "The request has 1 invalid input.",
          "instance": "/labor/v1/shifts/shift-42",
          "code": "VALIDATION_FAILED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A",
          "errors": [
            {
              "path": "/params/shiftId",
              "message": "must be a platform GUID or an external identifier {namingAuthority}:{value}"
            }
          ]
        }
      },
      "IncludeArchivedValidationProblem": {
        "summary": "includeArchived is not a boolean",
        "value": {
          "type": "https://workforce-kit.dev/problems/validation-failed",
          "title": "Request validation failed",
          "status": 400,
          "detail": "The request has 1 invalid input.",
          "instance": "/restaurants/v1/restaurants/b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b",
          "code": "VALIDATION_FAILED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A",
          "errors": [
            {
              "path": "/query/includeArchived",
              "message": "must be boolean"
            }
          ]
        }
      },
      "MalformedJsonProblem": {
        "summary": "The body is not JSON",
        "value": {
          "type": "https://workforce-kit.dev/problems/malformed-json",
          "title": "Malformed JSON body",
          "status": 400,
          "detail": "The request body is not valid JSON.",
          "instance": "/labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/unarchive",
          "code": "MALFORMED_JSON",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "EmployeeNotFoundProblem": {
        "summary": "No such employee at the context restaurant",
        "value": {
          "type": "https://workforce-kit.dev/problems/employee-not-found",
          "title": "Employee not found",
          "status": 404,
          "detail": "No employee 6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d at this restaurant.",
          "instance": "/labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/unarchive",
          "code": "EMPLOYEE_NOT_FOUND",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "ShiftNotFoundProblem": {
        "summary": "No such shift at the context restaurant",
        "value": {
          "type": "https://workforce-kit.dev/problems/shift-not-found",
          "title": "Shift not found",
          "status": 404,
          "detail": "No shift SCHEDULER:shift-20260301-0042 at this restaurant.",
          "instance": "/labor/v1/shifts/SCHEDULER:shift-20260301-0042",
          "code": "SHIFT_NOT_FOUND",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "RestaurantNotFoundProblem": {
        "summary": "The restaurant is archived, another one, or unknown",
        "value": {
          "type": "https://workforce-kit.dev/problems/restaurant-not-found",
          "title": "Restaurant not found",
          "status": 404,
          "detail": "No restaurant b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b is available in this context.",
          "instance": "/restaurants/v1/restaurants/b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b",
          "code": "RESTAURANT_NOT_FOUND",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "InvalidTokenProblem": {
        "summary": "The token has expired",
        "value": {
          "type": "https://workforce-kit.dev/problems/invalid-token",
          "title": "Invalid access token",
          "status": 401,
          "detail": "The access token has expired.",
          "instance": "/labor/v1/shifts/9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
          "code": "INVALID_TOKEN",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "InsufficientScopeProblem": {
        "summary": "The token lacks the operation's scope",
        "value": {
          "type": "https://workforce-kit.dev/problems/insufficient-scope",
          "title": "Insufficient scope",
          "status": 403,
          "detail": "This operation needs the scope labor.shifts:write.",
          "instance": "/labor/v1/shifts/9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
          "code": "INSUFFICIENT_SCOPE",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "RestaurantNotPermittedProblem": {
        "summary": "The token may not act for the context restaurant",
        "value": {
          "type": "https://workforce-kit.dev/problems/restaurant-not-permitted",
          "title": "Restaurant not permitted",
          "status": 403,
          "detail": "The access token may not act for restaurant b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b.",
          "instance": "/labor/v1/shifts/9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
          "code": "RESTAURANT_NOT_PERMITTED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "MethodNotAllowedProblem": {
        "summary": "GET on the unarchive path",
        "value": {
          "type": "https://workforce-kit.dev/problems/method-not-allowed",
          "title": "Method not allowed",
          "status": 405,
          "detail": "GET is not supported here; use PUT.",
          "instance": "/labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/unarchive",
          "code": "METHOD_NOT_ALLOWED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "PayloadTooLargeProblem": {
        "summary": "The body is over 16 KiB",
        "value": {
          "type": "https://workforce-kit.dev/problems/payload-too-large",
          "title": "Payload too large",
          "status": 413,
          "detail": "The request body is larger than 16384 bytes.",
          "instance": "/labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/unarchive",
          "code": "PAYLOAD_TOO_LARGE",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "UnsupportedMediaTypeProblem": {
        "summary": "Content-Type is not application/json",
        "value": {
          "type": "https://workforce-kit.dev/problems/unsupported-media-type",
          "title": "Unsupported media type",
          "status": 415,
          "detail": "Content-Type must be application/json.",
          "instance": "/labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/unarchive",
          "code": "UNSUPPORTED_MEDIA_TYPE",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "RateLimitedProblem": {
        "summary": "The restaurant's rate limit is spent",
        "value": {
          "type": "https://workforce-kit.dev/problems/rate-limited",
          "title": "Too many requests",
          "status": 429,
          "detail": "The rate limit of this restaurant context is spent; retry in 1 s.",
          "instance": "/restaurants/v1/restaurants/b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b",
          "code": "RATE_LIMITED",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "InternalErrorProblem": {
        "summary": "An unexpected error",
        "value": {
          "type": "https://workforce-kit.dev/problems/internal-error",
          "title": "Internal server error",
          "status": 500,
          "detail": "An unexpected error occurred. Quote the requestId to support.",
          "instance": "/labor/v1/shifts/9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
          "code": "INTERNAL_ERROR",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "StorageUnavailableProblem": {
        "summary": "The database cannot be reached",
        "value": {
          "type": "https://workforce-kit.dev/problems/storage-unavailable",
          "title": "Storage unavailable",
          "status": 503,
          "detail": "The store is unavailable; nothing was changed. Retry later.",
          "instance": "/labor/v1/shifts/9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
          "code": "STORAGE_UNAVAILABLE",
          "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A"
        }
      },
      "EmployeeArchivedWebhookExample": {
        "summary": "Maria archived",
        "value": {
          "type": "employee.archived",
          "timestamp": "2026-02-27T22:15:00.000Z",
          "data": {
            "restaurantGuid": "b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b",
            "employeeGuid": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d",
            "occurredAt": "2026-02-27T22:15:00.000Z",
            "requestId": "4f1c2d3e-checkout-retry-2",
            "record": {
              "guid": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d",
              "entityType": "RestaurantUser",
              "externalId": "PAYROLL:10042",
              "createdDate": "2024-02-12T14:03:11.000Z",
              "modifiedDate": "2026-02-27T22:15:00.000Z",
              "deletedDate": "2026-02-27T22:15:00.000Z",
              "firstName": "Maria",
              "lastName": "Lopez",
              "deleted": true,
              "jobReferences": [
                {
                  "guid": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                  "entityType": "RestaurantJob",
                  "externalId": "POS:line-cook"
                }
              ]
            }
          }
        }
      },
      "EmployeeUnarchivedWebhookExample": {
        "summary": "Maria unarchived",
        "value": {
          "type": "employee.unarchived",
          "timestamp": "2026-03-01T16:20:45.123Z",
          "data": {
            "restaurantGuid": "b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b",
            "employeeGuid": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d",
            "occurredAt": "2026-03-01T16:20:45.123Z",
            "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A",
            "record": {
              "guid": "6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d",
              "entityType": "RestaurantUser",
              "externalId": "PAYROLL:10042",
              "createdDate": "2024-02-12T14:03:11.000Z",
              "modifiedDate": "2026-03-01T16:20:45.123Z",
              "firstName": "Maria",
              "lastName": "Lopez",
              "deleted": false,
              "jobReferences": [
                {
                  "guid": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                  "entityType": "RestaurantJob",
                  "externalId": "POS:line-cook"
                }
              ]
            }
          }
        }
      },
      "ShiftDeletedWebhookExample": {
        "summary": "A dinner shift deleted",
        "value": {
          "type": "shift.deleted",
          "timestamp": "2026-02-28T11:02:17.481Z",
          "data": {
            "restaurantGuid": "b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b",
            "shiftGuid": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
            "occurredAt": "2026-02-28T11:02:17.481Z",
            "requestId": "01JD3M5Q8Z4K9T2V6W7X8Y9Z0A",
            "record": {
              "guid": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
              "entityType": "Shift",
              "externalId": "SCHEDULER:shift-20260301-0042",
              "createdDate": "2026-02-20T09:30:00.000Z",
              "modifiedDate": "2026-02-28T11:02:17.481Z",
              "deletedDate": "2026-02-28T11:02:17.481Z",
              "deleted": true,
              "inDate": "2026-03-01T21:00:00.000Z",
              "outDate": "2026-03-02T05:00:00.000Z"
            }
          }
        }
      }
    }
  }
};
