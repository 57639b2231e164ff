/**
 * The root CA PEM the kube-root-ca.crt ConfigMaps publish when the emulator serves plain HTTP:
 * a fixed self-signed certificate (CN tollgate-emulator-ca, no key kept), so the ConfigMap has
 * a real certificate's shape. With TLS the serving CA is published instead (server.ts).
 */
export function rootCaPem(): string {
  return `-----BEGIN CERTIFICATE-----
MIIBljCCATugAwIBAgIUG8Vw7p811yNXzP2ItSd+wdy1IdcwCgYIKoZIzj0EAwIw
HzEdMBsGA1UEAwwUdG9sbGdhdGUtZW11bGF0b3ItY2EwIBcNMjYxMTI2MTQxMDM2
WhgPMjEyNjExMDIxNDEwMzZaMB8xHTAbBgNVBAMMFHRvbGxnYXRlLWVtdWxhdG9y
LWNhMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEk2WMAAsLShSVJ4KD42CC9dir
+94aGP47f+rgFoW7u82BhpCxS/Z4JLUNc2R1onlt2xCykS2EttDLlhwggTEA+KNT
MFEwHQYDVR0OBBYEFJlfLT4KPpX6qmOXqFLGM5nZgvXEMB8GA1UdIwQYMBaAFJlf
LT4KPpX6qmOXqFLGM5nZgvXEMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwID
SQAwRgIhAMZYUFdaUxwuG8HX7qBs8/B3ujRRpEqQeX5uL/jd0tcBAiEAxUR1PY27
QdSuNVx+hQLXfbb0RaEv+rjfM9K8TXOtiXo=
-----END CERTIFICATE-----
`;
}
