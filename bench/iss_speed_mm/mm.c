/* iss_speed kernel: 64x64 f32 and i32 matrix products, 200 times (~640 M instructions). */
#include <stdio.h>
#include <stdint.h>
#define N 64
float A[N][N], B[N][N], C[N][N];
int32_t IA[N][N], IB[N][N], IC[N][N];
int main(void){
  for(int i=0;i<N;i++)for(int j=0;j<N;j++){A[i][j]=(float)(i+j)*0.5f;B[i][j]=(float)(i-j)*0.25f;IA[i][j]=i*3+j;IB[i][j]=i-2*j;}
  for(int r=0;r<200;r++){
  for(int i=0;i<N;i++)for(int j=0;j<N;j++){float s=0;int32_t t=0;for(int k=0;k<N;k++){s+=A[i][k]*B[k][j];t+=IA[i][k]*IB[k][j];}C[i][j]=s;IC[i][j]=t;}
  }
  printf("%d %d\n",(int)C[5][7],IC[9][3]);
  return 0;
}
